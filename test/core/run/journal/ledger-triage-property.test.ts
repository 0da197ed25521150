import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { JournalEvent } from '../../../../src/run/journal/journal.js';
import { replayJournal } from '../../../../src/run/journal/ledger-fold.js';
import { emptyTriage, MAX_UNDO, type TriageLedger } from '../../../../src/run/journal/triage-ledger.js';

// Issue 8 item 8: the redo queue, the skipped list and the undo stack live in the journal.
// The fold must say what a plain reading of the journal says, for any interleaving of
// queues, launches, skips, backups and undos: checked against a naive model that rereads
// the whole history for each question.

const cfg = { breaker: { threshold: 3, cooldownMs: 1_000, maxCooldownMs: 8_000 }, limits: { maxLaunches: 99, maxConsecutiveFailures: 99 } };
const UNITS = ['ch01', 'ch02'];
const STEPS = ['draft', 'r1'];
const PATHS = ['drafts/ch01-draft.md', 'drafts/ch02-draft.md', 'reviews/ch01-r1.md'];
const GROUPS = ['g1', 'g2', 'g3', 'g4'];
const pick = <T>(xs: readonly T[]) => fc.constantFrom(...xs);
const cell = fc.record({ unit: pick(UNITS), step: pick(STEPS) });

// Omit over each variant, not over the union (which would keep only the fields all share).
type Picked = Extract<JournalEvent, { type: 'redo_queued' | 'skip' | 'undo_pushed' | 'undo_popped' | 'launch' }>;
type OmitEach<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
type Ev = OmitEach<Picked, 'at' | 'v'>;
const eventArb: fc.Arbitrary<Ev> = fc.oneof(
  fc.record({ c: cell, path: pick(PATHS), n: fc.nat(9) }).map(({ c, path, n }): Ev => ({ type: 'redo_queued', ...c, path, backup: `${path}.bak.${n}` })),
  cell.map((c): Ev => ({ type: 'launch', runId: 'r', ...c, agent: 'writer', attempt: 1, argv: ['w'], cwd: '/w', logPath: '/w/l', pid: null, procStart: null, outputPath: null })),
  fc.record({ path: pick(PATHS), on: fc.boolean() }).map((x): Ev => ({ type: 'skip', ...x })),
  fc.record({ id: pick(GROUPS), paths: fc.subarray(PATHS, { minLength: 1 }) }).map(({ id, paths }): Ev => ({ type: 'undo_pushed', id, label: `label ${id}`, moves: paths.map((p) => ({ path: p, backup: `${p}.bak.${id}` })) })),
  pick(GROUPS).map((id): Ev => ({ type: 'undo_popped', id })),
);

/** The model: each answer computed from the whole history, the way a person would read it. */
function model(events: readonly JournalEvent[]): TriageLedger {
  // A cell is queued when its last redo_queued is after every launch of it and after every
  // undo that restored its path (while that group was on the stack).
  const redoQueue: TriageLedger['redoQueue'] = [];
  const stack: TriageLedger['undo'] = [];
  const queued = new Map<string, { i: number; e: Extract<JournalEvent, { type: 'redo_queued' }> }>();
  events.forEach((e, i) => {
    if (e.type === 'redo_queued') queued.set(`${e.unit}/${e.step}`, { i, e });
    if (e.type === 'launch') queued.delete(`${e.unit}/${e.step}`);
    if (e.type === 'undo_pushed') {
      const j = stack.findIndex((g) => g.id === e.id);
      if (j >= 0) stack.splice(j, 1);
      stack.push({ id: e.id, label: e.label, moves: e.moves });
      if (stack.length > MAX_UNDO) stack.shift();
    }
    if (e.type === 'undo_popped') {
      const j = stack.findIndex((g) => g.id === e.id);
      if (j < 0) return;
      const paths = new Set(stack[j].moves.map((m) => m.path));
      stack.splice(j, 1);
      for (const [k, q] of queued) if (paths.has(q.e.path)) queued.delete(k);
    }
  });
  for (const { e } of [...queued.values()].sort((a, b) => a.i - b.i)) redoQueue.push({ unit: e.unit, step: e.step, path: e.path, backup: e.backup, queuedAt: e.at });
  // A path is skipped when its last skip event says so.
  const last = new Map<string, { i: number; on: boolean }>();
  events.forEach((e, i) => {
    if (e.type === 'skip') last.set(e.path, { i: last.get(e.path)?.on === e.on ? last.get(e.path)!.i : i, on: e.on });
  });
  const skipped = [...last].filter(([, v]) => v.on).sort((a, b) => a[1].i - b[1].i).map(([p]) => p);
  // No redo_applied among these events: no fork (docs/redo.md).
  return { redoQueue, skipped, undo: stack, overrides: {} };
}

describe('triage continuity in the ledger fold', () => {
  it('the fold says what the whole journal says, for any interleaving', () => {
    fc.assert(
      fc.property(fc.array(eventArb, { maxLength: 60 }), (shapes) => {
        const events = shapes.map((s, i) => ({ ...s, at: i * 10, v: 1 }) as JournalEvent);
        expect(replayJournal(events, events.length * 10, cfg).triage).toStrictEqual(model(events));
      }),
      { numRuns: 500 },
    );
  });

  it('starts empty', () => {
    expect(replayJournal([], 0, cfg).triage).toStrictEqual(emptyTriage());
  });
});
