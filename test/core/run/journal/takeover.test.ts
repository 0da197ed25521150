import { describe, expect, it } from 'vitest';
import { replayJournal } from '../../../../src/run/journal/ledger-fold.js';
import type { JournalEvent } from '../../../../src/run/journal/journal.js';
import { CLOSED_REASON, driverPilot, KEPT_REASON } from '../../../../src/run/supervisor/takeover.js';
import { DEFAULT_BREAKER, DEFAULT_LIMITS } from '../../../../src/pipeline/config/config.js';

// Issue 17 item 3: what a new driver keeps of the one that went, read from its journal.

const cfg = { breaker: DEFAULT_BREAKER, limits: DEFAULT_LIMITS };
const ev = (e: Record<string, unknown>): JournalEvent => ({ v: 1, ...e }) as unknown as JournalEvent;
const session = (at: number) => ev({ type: 'session', at, kind: 'start', pid: 1 });
const pilot = (at: number, on: boolean, reason: string) => ev({ type: 'autopilot', at, on, reason });
const launch = (at: number, runId: string, unit: string) =>
  ev({ type: 'launch', at, runId, unit, step: 'research', agent: 'a', attempt: 1, argv: ['x'], cwd: '/', logPath: '/l', pid: 5, procStart: 1, outputPath: null });
const exit = (at: number, runId: string, unit: string, cls: string) =>
  ev({ type: 'exit', at, runId, unit, step: 'research', agent: 'a', exitCode: null, signal: null, class: cls, markerFound: false, cmdFp: '', errFp: '', keywords: [], errorTail: [], durationMs: 1 });
const of = (events: JournalEvent[]) => driverPilot(replayJournal(events, 1000, cfg));

describe('driverPilot', () => {
  it('on when the driver left it on (killed), or closed with it on; off when the operator turned it off or never on', () => {
    expect(of([session(1), pilot(2, true, 'turned on by the operator')]).on).toBe(true);
    expect(of([session(1), pilot(2, true, 'turned on by the operator'), pilot(3, false, CLOSED_REASON)]).on).toBe(true);
    expect(of([session(1), pilot(2, true, 'turned on by the operator'), pilot(3, false, 'turned off by the operator')]).on).toBe(false);
    expect(of([session(1)]).on).toBe(false);
  });

  it('a kept-on autopilot is not the operator answering a pause: the failure count goes on', () => {
    const failed = [session(1), pilot(2, true, 'turned on by the operator'), launch(3, 'r1', 'ch01'), exit(4, 'r1', 'ch01', 'UNKNOWN')];
    expect(replayJournal([...failed, pilot(5, true, KEPT_REASON)], 10, cfg).consecutiveFailures).toBe(1);
    expect(replayJournal([...failed, pilot(5, true, 'turned on by the operator')], 10, cfg).consecutiveFailures).toBe(0);
  });
});
