import { afterEach, describe, expect, it } from 'vitest';
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../../src/pipeline/config/config.js';
import { openSupervisor, type Supervisor, type SupervisorEvent } from '../../../src/run/supervisor/supervisor.js';
import { journalPath, type NewJournalEvent } from '../../../src/run/journal/journal.js';
import { fromSupervisor } from '../../../src/socket/events.js';
import { fakeAgentWorkspace } from '../../helpers/workspace.js';

// Issue 18 items 1-2: a read-only observer announces the lines the driver appends to the
// journal as the supervisor events the driver emitted for them (src/run/journal/news.ts), so
// its `watch --json` carries what the driver's would: once per line, with the escalation's
// own class, and nothing for the lines that were there when it opened (the state, not news).
// A real observer (openSupervisor readonly) on a real journal appended by hand.

const open: Supervisor[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});

const T = 1_700_000_000_000;
const append = (root: string, events: NewJournalEvent[]): void => appendFileSync(journalPath(root), events.map((e) => JSON.stringify({ ...e, v: 1 }) + '\n').join(''));

const launch = (root: string, runId: string, unit: string, step: string, attempt: number, at: number): NewJournalEvent => ({ type: 'launch', at, runId, unit, step, agent: 'researcher', attempt, argv: ['false'], cwd: root, logPath: join(root, '.checkroom', 'runs', `${runId}.log`), pid: null, procStart: null, outputPath: null });
const exit = (runId: string, unit: string, step: string, cls: string, at: number): NewJournalEvent => ({
  type: 'exit',
  at,
  runId,
  unit,
  step,
  agent: 'researcher',
  exitCode: cls === 'SUCCESS' ? 0 : 1,
  signal: null,
  class: cls as never,
  markerFound: cls === 'SUCCESS',
  cmdFp: 'c',
  errFp: 'e',
  keywords: [],
  errorTail: cls === 'SUCCESS' ? [] : ['boom'],
  error: cls === 'SUCCESS' ? undefined : `${cls}: boom`,
  durationMs: 10,
});

async function observer(root: string): Promise<{ sup: Supervisor; seen: SupervisorEvent[] }> {
  const sup = await openSupervisor({ root, config: await loadConfig(root), readonly: true, now: () => T + 60_000 });
  open.push(sup);
  const seen: SupervisorEvent[] = [];
  sup.subscribe((e) => seen.push(e));
  return { sup, seen };
}

/** What `watch --json` streams of them (the socket's mapping), without the clock. */
const watched = (seen: SupervisorEvent[]) => seen.flatMap((e) => fromSupervisor(e, 'at')).map(({ at: _, ...rest }) => rest);

describe('an observer announces the journal it follows (issue 18 items 1-2)', () => {
  it('the lines appended after it opened arrive once, as the driver emitted them: launch, escalation with its class, autopilot, done', async () => {
    const root = fakeAgentWorkspace('checkroom-news-', { units: ['ch01', 'ch02'] });
    mkdirSync(join(root, '.checkroom', 'runs'), { recursive: true });
    // There before the observer opened: the state, never news.
    append(root, [
      { type: 'session', at: T, kind: 'start', pid: 4_000_001 },
      launch(root, 'r0', 'ch02', 'research', 1, T + 1),
      exit('r0', 'ch02', 'research', 'UNKNOWN', T + 2),
      { type: 'escalate', at: T + 3, unit: 'ch02', step: 'research', class: 'UNKNOWN', reason: 'old news' },
      { type: 'autopilot', at: T + 4, on: false, reason: 'turned off by the operator' },
    ]);
    const { sup, seen } = await observer(root);
    await sup.refresh();
    expect(watched(seen)).toEqual([]);

    append(root, [
      launch(root, 'r1', 'ch01', 'research', 1, T + 10),
      exit('r1', 'ch01', 'research', 'UNKNOWN', T + 11),
      { type: 'escalate', at: T + 12, unit: 'ch01', step: 'research', class: 'CIRCULAR_FIX', reason: 'the same UNKNOWN three times' },
      { type: 'autopilot', at: T + 13, on: true, reason: 'turned on by the operator' },
      launch(root, 'r2', 'ch02', 'research', 2, T + 14),
      exit('r2', 'ch02', 'research', 'SUCCESS', T + 15),
    ]);
    await sup.refresh();
    const got = watched(seen);
    expect(got.map((e) => e.type)).toEqual(['run-started', 'run-ended', 'escalation', 'autopilot', 'run-started', 'run-ended']);
    expect(got[0]).toMatchObject({ unit: 'ch01', step: 'research', runId: 'r1', attempt: 1, agent: 'researcher' });
    expect(got[1]).toMatchObject({ unit: 'ch01', step: 'research', outcome: 'failed' });
    expect(got[2]).toEqual({ type: 'escalation', unit: 'ch01', step: 'research', class: 'CIRCULAR_FIX', reason: 'the same UNKNOWN three times' });
    expect(got[3]).toEqual({ type: 'autopilot', on: true, paused: false, reason: 'turned on by the operator' });
    expect(got[5]).toMatchObject({ unit: 'ch02', step: 'research', outcome: 'done' });

    // A refresh that reads the same journal again announces nothing twice.
    const n = seen.length;
    await sup.refresh();
    await sup.refresh();
    expect(seen.slice(n).filter((e) => e.type !== 'breaker')).toEqual([]);
  });

  it('a failed attempt is announced at its cell\'s stop: nothing when it is retried, failed when the session stops; a pause says paused', async () => {
    const root = fakeAgentWorkspace('checkroom-news-');
    mkdirSync(join(root, '.checkroom', 'runs'), { recursive: true });
    // An empty journal at the opening: everything after it is news.
    const { sup, seen } = await observer(root);
    append(root, [launch(root, 'r1', 'ch01', 'research', 1, T + 1), exit('r1', 'ch01', 'research', 'RATE_LIMIT', T + 2)]);
    await sup.refresh();
    // The exit alone does not say whether the driver retries it: not announced yet.
    expect(watched(seen).map((e) => e.type)).toEqual(['run-started']);
    append(root, [
      { type: 'retry_scheduled', at: T + 3, unit: 'ch01', step: 'research', attempt: 2, delayMs: 10, reason: 'RATE_LIMIT — retrying' },
      launch(root, 'r2', 'ch01', 'research', 2, T + 4),
      exit('r2', 'ch01', 'research', 'UNKNOWN', T + 5),
      { type: 'autopilot', at: T + 6, on: false, reason: 'paused: 3 consecutive failures' },
      { type: 'session', at: T + 7, kind: 'stop', pid: 4_000_001, reason: 'quit' },
    ]);
    await sup.refresh();
    const got = watched(seen);
    expect(got.map((e) => e.type)).toEqual(['run-started', 'run-started', 'autopilot', 'run-ended']);
    expect(got[2]).toEqual({ type: 'autopilot', on: false, paused: true, reason: '3 consecutive failures' });
    expect(got[3]).toMatchObject({ unit: 'ch01', step: 'research', outcome: 'failed', detail: expect.stringContaining('UNKNOWN') });
  });
});
