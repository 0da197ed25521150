import { describe, expect, it } from 'vitest';
import { drainedStep, NO_PAUSE, parsePauseTarget, pauseStep, pauseStopOf, type PauseRecord, type PauseState } from '../../../../src/run/policy/pause.js';
import { retryStopOf } from '../../../../src/run/policy/retry-stop.js';
import { replayJournal } from '../../../../src/run/journal/ledger-fold.js';
import { parseJournal } from '../../../../src/run/journal/journal.js';
import { DEFAULT_BREAKER } from '../../../../src/pipeline/defaults.js';
import { pauseHeadline, pauseOf } from '../../../../src/operator/pause.js';
import type { DrainedEvent, PauseEvent } from '../../../../src/run/journal/pause-events.js';

// Drain and pause (docs/drain.md), the one decision every launch asks: what holds which cell,
// with who and when and how to resume in its words; folded from the journal's records.

const at = Date.UTC(2026, 11, 2, 7, 12, 5);
const rec = (scope: PauseRecord['scope'], target: string | null, on: boolean, by = 'root via :pause', t = at): PauseRecord => ({ scope, target, on, at: t, by });
const fold = (...rs: PauseRecord[]): PauseState => rs.reduce(pauseStep, NO_PAUSE);
const writer = { unit: 'ch03', step: 'draft', agent: 'writer', executor: 'local' };
const reviewer = { unit: 'ch03', step: 'review', agent: 'reviewer', executor: 'slurm' };

describe('pauseStopOf: the one decision', () => {
  it('lets every launch go when nothing is paused or draining', () => {
    expect(pauseStopOf(NO_PAUSE, writer)).toBeNull();
  });

  it('drain holds everything, with who, when and how to undrain', () => {
    const s = fold(rec('drain', null, true, 'root via :drain'));
    for (const a of [writer, reviewer]) {
      const stop = pauseStopOf(s, a)!;
      expect(stop.kind).toBe('drain');
      expect(stop.reason).toBe('draining since 07:12:05 UTC (by root via :drain): no new launch; undrain with :undrain or checkroom drain --off');
    }
    expect(pauseStopOf(fold(rec('drain', null, true), rec('drain', null, false)), writer)).toBeNull();
  });

  it('a pause of one agent holds only its cells', () => {
    const s = fold(rec('agent', 'writer', true, 'root via p'));
    expect(pauseStopOf(s, writer)?.reason).toBe('agent writer paused at 07:12:05 UTC by root via p; resume with :resume agent=writer or checkroom resume --agent writer');
    expect(pauseStopOf(s, reviewer)).toBeNull();
  });

  it('a pause of a cell, an executor or everything holds what it names', () => {
    expect(pauseStopOf(fold(rec('cell', 'ch03/draft', true)), writer)?.rule?.scope).toBe('cell');
    expect(pauseStopOf(fold(rec('cell', 'ch03/draft', true)), reviewer)).toBeNull();
    expect(pauseStopOf(fold(rec('executor', 'slurm', true)), reviewer)?.reason).toContain('executor slurm paused');
    expect(pauseStopOf(fold(rec('executor', 'slurm', true)), writer)).toBeNull();
    expect(pauseStopOf(fold(rec('all', null, true)), writer)?.reason).toContain('everything paused at 07:12:05 UTC by root via :pause; resume with :resume all or checkroom resume --all');
  });

  it('resume ends its own pause; resume all ends every pause', () => {
    expect(pauseStopOf(fold(rec('agent', 'writer', true), rec('cell', 'ch03/draft', true), rec('agent', 'writer', false)), writer)?.rule?.scope).toBe('cell');
    expect(fold(rec('agent', 'writer', true), rec('cell', 'ch03/draft', true), rec('all', null, false)).rules).toEqual([]);
  });

  it('changes nothing (the same object) for a pause already in force or a resume of nothing', () => {
    const s = fold(rec('agent', 'writer', true));
    expect(pauseStep(s, rec('agent', 'writer', true, 'someone else', at + 5))).toBe(s);
    expect(pauseStep(s, rec('agent', 'reviewer', false))).toBe(s);
    expect(pauseStep(NO_PAUSE, rec('drain', null, false))).toBe(NO_PAUSE);
  });

  it('drained is recorded once per drain; a new drain starts undrained', () => {
    const d = fold(rec('drain', null, true));
    const drained = drainedStep(d, at + 1000);
    expect(drained.drain?.drainedAt).toBe(at + 1000);
    expect(drainedStep(drained, at + 2000)).toBe(drained);
    expect(drainedStep(NO_PAUSE, at)).toBe(NO_PAUSE);
  });

  it('stops a retry: the guard says paused, before the budget', () => {
    const paused = pauseStopOf(fold(rec('drain', null, true)), writer);
    expect(retryStopOf({ consecutiveFailures: 0 }, { maxConsecutiveFailures: 3 }, { closed: false, budget: null, paused })).toEqual({ kind: 'paused', reason: paused!.reason });
  });
});

describe('parsePauseTarget: the : line', () => {
  it('reads all, cell=, agent=, executor= and refuses the rest with what to type', () => {
    expect(parsePauseTarget('')).toEqual({ scope: 'all', target: null });
    expect(parsePauseTarget('all')).toEqual({ scope: 'all', target: null });
    expect(parsePauseTarget('cell=ch03/draft')).toEqual({ scope: 'cell', target: 'ch03/draft' });
    expect(parsePauseTarget('agent=writer')).toEqual({ scope: 'agent', target: 'writer' });
    expect(parsePauseTarget('executor=slurm')).toEqual({ scope: 'executor', target: 'slurm' });
    expect(parsePauseTarget('writer')).toMatch(/names nothing to pause: use all, cell=UNIT\/STEP, agent=NAME or executor=NAME/);
    expect(parsePauseTarget('cell=ch03')).toMatch(/not UNIT\/STEP/);
  });
});

describe('the journal fold and the operator model', () => {
  const lines = (...es: (Omit<PauseEvent, 'v'> | Omit<DrainedEvent, 'v'> | object)[]) => es.map((e) => JSON.stringify({ v: 1, ...e })).join('\n') + '\n';
  const cfg = { breaker: DEFAULT_BREAKER, limits: { maxLaunches: 100, maxConsecutiveFailures: 5 } } as Parameters<typeof replayJournal>[2];

  it('folds pause and drained records from the journal, as a restart reads them', () => {
    const j = parseJournal(
      lines(
        { type: 'pause', at, scope: 'drain', target: null, on: true, by: 'root via :drain' },
        { type: 'pause', at, scope: 'agent', target: 'writer', on: true, by: 'root via p' },
        { type: 'drained', at: at + 9000, since: at },
      ),
    );
    expect(j.warnings).toEqual([]);
    const l = replayJournal(j.events, at + 10_000, cfg);
    expect(l.pause.drain).toEqual({ at, by: 'root via :drain', drainedAt: at + 9000 });
    expect(l.pause.rules).toEqual([{ scope: 'agent', target: 'writer', at, by: 'root via p' }]);
    expect(pauseOf(l, []).words).toBe('DRAINED · PAUSED: agent writer');
  });

  it('refuses a malformed pause record instead of folding it', () => {
    const j = parseJournal(lines({ type: 'pause', at, scope: 'drain', on: 'yes', by: 'x', target: null }));
    expect(j.events).toEqual([]);
    expect(j.warnings.join()).toMatch(/pause event with bad field "on"/);
  });

  it('says DRAINING with the runs still in flight, DRAINED after', () => {
    expect(pauseHeadline({ drain: { since: at, by: 'x', running: 2, drainedAt: null }, paused: [] })).toBe('DRAINING (2 running)');
    expect(pauseHeadline({ drain: { since: at, by: 'x', running: 0, drainedAt: at }, paused: [] })).toBe('DRAINED');
    expect(pauseHeadline({ drain: null, paused: [] })).toBeNull();
  });
});
