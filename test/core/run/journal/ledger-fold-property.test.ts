import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { AttemptClass } from '../../../../src/run/policy/classify.js';
import type { JournalEvent, NewJournalEvent } from '../../../../src/run/journal/journal.js';
import type { Ledger } from '../../../../src/run/journal/ledger.js';
import { LedgerFold, replayJournal } from '../../../../src/run/journal/ledger-fold.js';

// Folding a journal in pieces must be indistinguishable from folding it at once (replayJournal)
// at the same clock, for any journal and any points at which the supervisor happened to look.

// Small limits and a short cooldown so random journals trip, half-open, re-trip and pause.
const cfg = {
  breaker: { threshold: 2, cooldownMs: 1_000, maxCooldownMs: 8_000 },
  limits: { maxLaunches: 6, maxConsecutiveFailures: 3 },
};

// Nine cells: enough that a view publishes both a patched and a fully rebuilt cell record.
const UNITS = ['ch01', 'ch02', 'ch03'];
const STEPS = ['draft', 'r1', 'r2'];
const AGENTS = ['writer', 'reviewer'];
const RUNS = ['r1', 'r2', 'r3', 'r4'];
const CLASSES: AttemptClass[] = ['SUCCESS', 'CANCELLED', 'RATE_LIMITED', 'STALLED', 'PERMISSION', 'VERIFICATION_FAILED', 'UNKNOWN', 'BROKEN_BUILD', 'CIRCULAR_FIX'];

type Shape = DistributiveOmitAt<NewJournalEvent>;
type DistributiveOmitAt<T> = T extends unknown ? Omit<T, 'at' | 'v'> : never;

const pick = <T>(xs: readonly T[]) => fc.constantFrom(...xs);
const cellArb = fc.record({ unit: pick(UNITS), step: pick(STEPS) });

const session: fc.Arbitrary<Shape> = fc.record({ kind: pick(['start', 'stop'] as const), pid: fc.nat(9) }).map(({ kind, pid }) => ({ type: 'session', kind, pid }));
const launch: fc.Arbitrary<Shape> = fc
  .record({ cell: cellArb, runId: pick(RUNS), agent: pick(AGENTS), attempt: fc.integer({ min: 1, max: 5 }), pid: fc.option(fc.nat(999), { nil: null }) })
  .map(({ cell, runId, agent, attempt, pid }) => ({
    type: 'launch', runId, ...cell, agent, attempt, argv: [agent, cell.unit], cwd: '/w', logPath: `/w/${runId}.log`, pid, procStart: pid === null ? null : 7, outputPath: null,
  }));
const exit: fc.Arbitrary<Shape> = fc
  .record({
    cell: cellArb, runId: pick(RUNS), agent: pick(AGENTS), class: pick(CLASSES), cmdFp: pick(['c1', 'c2']), errFp: pick(['e1', 'e2']),
    keywords: fc.subarray(['disk', 'full', 'timeout', 'parse', 'error']), tail: fc.array(pick(['', '  ', 'boom', 'line two']), { maxLength: 3 }),
  })
  .map(({ cell, runId, agent, class: cls, cmdFp, errFp, keywords, tail }) => ({
    type: 'exit', runId, ...cell, agent, exitCode: cls === 'SUCCESS' ? 0 : 1, signal: null, class: cls, markerFound: cls === 'SUCCESS', cmdFp, errFp, keywords, errorTail: tail, durationMs: 5,
  }));
const reaped: fc.Arbitrary<Shape> = fc.record({ runId: pick(RUNS), outcome: pick(['reaped', 'gone', 'foreign']) }).map(({ runId, outcome }) => ({ type: 'reaped', runId, pid: null, outcome }));
const retry: fc.Arbitrary<Shape> = fc
  .record({ cell: cellArb, attempt: fc.integer({ min: 1, max: 5 }), delayMs: fc.nat(3_000) })
  .map(({ cell, attempt, delayMs }) => ({ type: 'retry_scheduled', ...cell, attempt, delayMs, reason: `retry ${attempt}` }));
const escalate: fc.Arbitrary<Shape> = fc
  .record({ cell: cellArb, class: pick(['PERMISSION', 'CIRCULAR_FIX', 'UNKNOWN'] as const) })
  .map(({ cell, class: cls }) => ({ type: 'escalate', ...cell, class: cls, reason: `${cls}: escalate` }));
const breaker: fc.Arbitrary<Shape> = fc
  .record({ agent: pick(AGENTS), event: pick(['success', 'failure', 'reset', 'hold', 'release'] as const), summary: fc.option(pick(['x', 'y']), { nil: undefined }) })
  .map(({ agent, event, summary }) => (summary === undefined ? { type: 'breaker', agent, event } : { type: 'breaker', agent, event, summary }));
const decision: fc.Arbitrary<Shape> = fc
  .record({ kind: pick(['backup', 'reset_cell', 'command_shown', 'skip'] as const), cell: fc.option(cellArb, { nil: undefined }) })
  .map(({ kind, cell }) => ({ type: 'decision', kind, ...(cell ?? {}) }));
const autopilot: fc.Arbitrary<Shape> = fc.boolean().map((on) => ({ type: 'autopilot', on, reason: on ? 'on' : 'off' }));
// Triage continuity (issue 8 item 8): the redo queue, skips and undo stack are folded too.
const PATHS = ['drafts/ch01-draft.md', 'drafts/ch02-draft.md', 'reviews/ch01-r1.md'];
const GROUPS = ['g1', 'g2', 'g3'];
const triage: fc.Arbitrary<Shape> = fc.oneof(
  fc.record({ cell: cellArb, path: pick(PATHS) }).map(({ cell, path }) => ({ type: 'redo_queued', ...cell, path, backup: `${path}.bak.1` }) as Shape),
  fc.record({ path: pick(PATHS), on: fc.boolean() }).map(({ path, on }) => ({ type: 'skip', path, on }) as Shape),
  fc.record({ id: pick(GROUPS), paths: fc.subarray(PATHS, { minLength: 1 }) }).map(({ id, paths }) => ({ type: 'undo_pushed', id, label: id, moves: paths.map((p) => ({ path: p, backup: `${p}.bak.${id}` })) }) as Shape),
  pick(GROUPS).map((id) => ({ type: 'undo_popped', id }) as Shape),
);

// Launches and exits dominate, as in a real journal, so breakers trip and limits pause.
const shapeArb = fc.oneof(
  { weight: 4, arbitrary: launch },
  { weight: 5, arbitrary: exit },
  ...[session, reaped, retry, escalate, breaker, decision, autopilot, triage].map((arbitrary) => ({ weight: 1, arbitrary })),
);

/** A journal in time order; gaps span the breaker cooldowns so the clock matters. */
const journalArb = fc
  .array(fc.tuple(shapeArb, fc.nat(2_500)), { maxLength: 80 })
  .map((items) => {
    let at = 0;
    return items.map(([shape, gap]) => ({ ...shape, at: (at += gap), v: 1 }) as JournalEvent);
  });

/** Where the supervisor looked: sorted cut points, each looked at twice at its own clocks. */
const looksArb = (n: number) =>
  fc.array(fc.record({ cut: fc.integer({ min: 0, max: n }), waits: fc.tuple(fc.nat(10_000), fc.nat(10_000)) }), { minLength: 1, maxLength: 6 }).map((xs) => xs.sort((a, b) => a.cut - b.cut));

const clockAt = (events: readonly JournalEvent[], cut: number, wait: number): number => (cut > 0 ? events[cut - 1].at : 0) + wait;

describe('LedgerFold', () => {
  it('equals a full replay at the same clock, wherever the journal is split', () => {
    fc.assert(
      fc.property(
        journalArb.chain((events) => fc.tuple(fc.constant(events), looksArb(events.length))),
        ([events, looks]) => {
          const fold = new LedgerFold(cfg);
          const seen: { view: Ledger; copy: Ledger }[] = [];
          for (const { cut, waits } of looks) {
            fold.apply(events.slice(fold.count, cut));
            expect(fold.count).toBe(cut);
            for (const wait of waits) {
              const now = clockAt(events, cut, wait);
              const view = fold.at(now);
              expect(view).toStrictEqual(replayJournal(events.slice(0, cut), now, cfg));
              seen.push({ view, copy: structuredClone(view) });
            }
          }
          fold.apply(events.slice(fold.count));
          const end = clockAt(events, events.length, 0);
          expect(fold.at(end)).toStrictEqual(replayJournal(events, end, cfg));
          // Ledgers handed out earlier were not changed by the events folded after them.
          for (const { view, copy } of seen) expect(view).toStrictEqual(copy);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('evaluates the breaker at the clock of the view, not of the last event', () => {
    const fail = (runId: string, at: number): JournalEvent[] => [
      { v: 1, type: 'launch', at, runId, unit: 'ch01', step: 'draft', agent: 'writer', attempt: 1, argv: ['w'], cwd: '/w', logPath: '/w/l', pid: null, procStart: null, outputPath: null },
      { v: 1, type: 'exit', at: at + 1, runId, unit: 'ch01', step: 'draft', agent: 'writer', exitCode: 1, signal: null, class: 'UNKNOWN', markerFound: false, cmdFp: 'c', errFp: runId, keywords: [], errorTail: ['boom'], durationMs: 1 },
    ];
    const fold = new LedgerFold(cfg).apply([...fail('a', 0), ...fail('b', 10)]);
    expect(fold.at(500).agents.writer.view).toMatchObject({ state: 'open', remainingMs: 511 });
    expect(fold.at(1_011).agents.writer).toMatchObject({ canLaunch: true, view: { state: 'half_open' } });
  });
});
