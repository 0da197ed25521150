import { describe, expect, it } from 'vitest';
import type { AttemptClass } from '../../../../src/run/policy/classify.js';
import type { JournalEvent } from '../../../../src/run/journal/journal.js';
import { replayJournal } from '../../../../src/run/journal/ledger-fold.js';

const cfg = {
  breaker: { threshold: 3, cooldownMs: 10_000, maxCooldownMs: 60_000 },
  limits: { maxLaunches: 5, maxConsecutiveFailures: 4 },
};

const launch = (runId: string, at: number, unit = 'ch01', step = 'draft', agent = 'writer', attempt = 1): JournalEvent => ({
  v: 1, type: 'launch', at, runId, unit, step, agent, attempt, argv: [agent, unit], cwd: '/w', logPath: `/w/${runId}.log`,
  pid: 100 + at, procStart: 7, outputPath: null,
});
const exit = (runId: string, at: number, cls: AttemptClass, unit = 'ch01', step = 'draft', agent = 'writer', errFp = `e-${runId}`): JournalEvent => ({
  v: 1, type: 'exit', at, runId, unit, step, agent, exitCode: cls === 'SUCCESS' ? 0 : 1, signal: null, class: cls,
  markerFound: cls === 'SUCCESS', cmdFp: 'c', errFp, keywords: [`kw-${runId}`], errorTail: [`${cls} tail of ${runId}`], durationMs: 10,
});

describe('replayJournal', () => {
  it('live runs are launches without an exit or a reaped event', () => {
    const events: JournalEvent[] = [
      { v: 1, type: 'session', at: 0, kind: 'start', pid: 1 },
      launch('r1', 1),
      launch('r2', 2, 'ch02'),
      launch('r3', 3, 'ch03', 'research', 'researcher'),
      exit('r1', 4, 'SUCCESS'),
      { v: 1, type: 'reaped', at: 5, runId: 'r2', pid: 102, outcome: 'killed' },
      { v: 1, type: 'session', at: 6, kind: 'stop', pid: 1 },
    ];
    const l = replayJournal(events, 10, cfg);
    expect(l.liveRuns).toHaveLength(1);
    expect(l.liveRuns[0]).toMatchObject({ runId: 'r3', unit: 'ch03', step: 'research', pid: 103, procStart: 7 });
    expect(l.cells['ch03/research'].state).toBe('running');
    expect(l.cells['ch02/draft']).toMatchObject({ state: 'idle', runId: null });
    expect(l.cells['ch01/draft'].state).toBe('done');
  });

  it('counts per class, keeps the last error tail, the retry time and the fingerprint repeats', () => {
    const events: JournalEvent[] = [
      launch('r1', 1), exit('r1', 2, 'RATE_LIMITED', 'ch01', 'draft', 'writer', 'same'),
      { v: 1, type: 'retry_scheduled', at: 2, unit: 'ch01', step: 'draft', attempt: 2, delayMs: 1000, reason: 'RATE_LIMITED' },
      launch('r2', 1003, 'ch01', 'draft', 'writer', 2), exit('r2', 1004, 'RATE_LIMITED', 'ch01', 'draft', 'writer', 'same'),
      launch('r3', 2000, 'ch01', 'draft', 'writer', 3), exit('r3', 2001, 'UNKNOWN'),
      { v: 1, type: 'retry_scheduled', at: 2001, unit: 'ch01', step: 'draft', attempt: 4, delayMs: 500, reason: 'UNKNOWN: retry 1 of 2' },
    ];
    const c = replayJournal(events, 2100, cfg).cells['ch01/draft'];
    expect(c.counts).toEqual({ RATE_LIMITED: 2, UNKNOWN: 1 });
    expect(c.attempts.map((a) => a.attempt)).toEqual([1, 2, 3]);
    expect(c.lastErrorTail).toEqual(['UNKNOWN tail of r3']);
    expect(c).toMatchObject({ state: 'retrying', nextRetryAt: 2501, lastClass: 'UNKNOWN', fingerprintRepeats: 1 });
    const two = replayJournal(events.slice(0, 5), 2100, cfg).cells['ch01/draft'];
    expect(two.fingerprintRepeats).toBe(2);
  });

  it('cancels do not count anywhere; escalation marks needs_human; reset_cell clears counters', () => {
    const events: JournalEvent[] = [
      launch('r1', 1), exit('r1', 2, 'CANCELLED'),
      launch('r2', 3), exit('r2', 4, 'PERMISSION'),
      { v: 1, type: 'escalate', at: 4, unit: 'ch01', step: 'draft', class: 'PERMISSION', reason: 'PERMISSION: escalate at once' },
    ];
    const l = replayJournal(events, 5, cfg);
    expect(l.cells['ch01/draft']).toMatchObject({ state: 'needs_human', counts: { PERMISSION: 1 } });
    expect(l.cells['ch01/draft'].escalation?.class).toBe('PERMISSION');
    expect(l.consecutiveFailures).toBe(1);
    expect(l.agents.writer.view.consecutiveFailures).toBe(1);

    const reset = replayJournal([...events, { v: 1, type: 'decision', at: 6, kind: 'reset_cell', unit: 'ch01', step: 'draft' }], 7, cfg);
    expect(reset.cells['ch01/draft']).toMatchObject({ state: 'idle', counts: {}, attempts: [], escalation: null, agent: 'writer' });
    expect(reset.decisions).toHaveLength(1);
  });

  it('rebuilds each agent breaker from its own exits and operator events', () => {
    const events: JournalEvent[] = [
      ...['a', 'b', 'c'].flatMap((id, i) => [launch(id, i * 10, `ch0${i + 1}`), exit(id, i * 10 + 1, 'OVERLOADED', `ch0${i + 1}`)]),
      launch('z', 30, 'ch09', 'research', 'researcher'), exit('z', 31, 'SUCCESS', 'ch09', 'research', 'researcher'),
    ];
    const l = replayJournal(events, 100, cfg);
    expect(l.agents.writer.view).toMatchObject({ state: 'open', trips: 1, remainingMs: 21 + 10_000 - 100 });
    expect(l.agents.writer.view.openedBy).toEqual(['OVERLOADED: OVERLOADED tail of a', 'OVERLOADED: OVERLOADED tail of b', 'OVERLOADED: OVERLOADED tail of c']);
    expect(l.agents.writer.canLaunch).toBe(false);
    expect(l.agents.researcher.view.state).toBe('closed');

    const held = replayJournal([...events, { v: 1, type: 'breaker', at: 40, agent: 'writer', event: 'reset' }, { v: 1, type: 'breaker', at: 41, agent: 'researcher', event: 'hold' }], 100, cfg);
    expect(held.agents.writer.view.state).toBe('closed');
    expect(held.agents.researcher).toMatchObject({ canLaunch: false, view: { state: 'held' } });
    // After the cooldown the open breaker admits one probe.
    expect(replayJournal(events, 21 + 10_000, cfg).agents.writer.view.state).toBe('half_open');
  });

  it('global limits pause autopilot; launches count per session; turning autopilot on resets the streak', () => {
    const failures = ['a', 'b', 'c', 'd'].flatMap((id, i) => [launch(id, i * 2, `ch0${i + 1}`), exit(id, i * 2 + 1, 'UNKNOWN', `ch0${i + 1}`)]);
    const l = replayJournal([{ v: 1, type: 'session', at: 0, kind: 'start', pid: 1 }, ...failures], 50, cfg);
    expect(l).toMatchObject({ consecutiveFailures: 4, paused: true, launchesThisSession: 4 });
    expect(l.pausedReason).toMatch(/4 consecutive failures/);

    const resumed = replayJournal(
      [...failures, { v: 1, type: 'autopilot', at: 20, on: true, reason: 'operator resumed' }, { v: 1, type: 'session', at: 21, kind: 'start', pid: 2 }, launch('e', 22)],
      50,
      cfg,
    );
    expect(resumed).toMatchObject({ consecutiveFailures: 0, paused: false, launchesThisSession: 1, sessionStartedAt: 21 });
    expect(resumed.autopilot).toEqual({ on: true, reason: 'operator resumed', at: 20 });

    const budget = replayJournal(['a', 'b', 'c', 'd', 'e'].map((id, i) => launch(id, i, `ch0${i}`)), 50, { ...cfg, limits: { ...cfg.limits, maxLaunches: 5 } });
    expect(budget.pausedReason).toMatch(/launch budget.*5 of 5/);
    expect(budget.liveRuns).toHaveLength(5);
  });

  it('a success clears the global failure streak', () => {
    const l = replayJournal([launch('a', 1), exit('a', 2, 'UNKNOWN'), launch('b', 3), exit('b', 4, 'SUCCESS'), launch('c', 5), exit('c', 6, 'NETWORK')], 10, cfg);
    expect(l.consecutiveFailures).toBe(1);
  });
});
