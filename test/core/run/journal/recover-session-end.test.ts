import { describe, expect, it } from 'vitest';
import { appendJournal } from '../../../../src/run/journal/journal.js';
import { lastSessionEnd } from '../../../../src/recover/session-end.js';
import { recoverReport } from '../../../../src/recover/report.js';
import type { JournalEvent } from '../../../../src/run/journal/journal.js';
import { copyDemo } from '../../../helpers/workspace.js';

// Issue 8 item 6: the recover report opened after a clean quit, because a pipeline mid-flight
// (half-products, ⏳ claims) looks interrupted on disk. The journal's session events decide.

const ev = (kind: 'start' | 'stop', pid: number, at: number): JournalEvent => ({ v: 1, type: 'session', kind, pid, at });

describe('lastSessionEnd', () => {
  it('reads the session before this process: stop is clean, a start with no stop is interrupted', () => {
    expect(lastSessionEnd([])).toBe('none');
    expect(lastSessionEnd([ev('start', 10, 1), ev('stop', 10, 2)], 99)).toBe('clean');
    expect(lastSessionEnd([ev('start', 10, 1)], 99)).toBe('interrupted');
    // This process's own start, journaled before the control room asks, is not judged.
    expect(lastSessionEnd([ev('start', 10, 1), ev('stop', 10, 2), ev('start', 99, 3)], 99)).toBe('clean');
    expect(lastSessionEnd([ev('start', 10, 1), ev('start', 99, 3)], 99)).toBe('interrupted');
    expect(lastSessionEnd([ev('start', 99, 3)], 99)).toBe('none');
    // A stop journaled on the way out of a signal or a closed terminal is no quit.
    const stop = (reason: string) => ({ ...ev('stop', 10, 2), reason }) as JournalEvent;
    expect(lastSessionEnd([ev('start', 10, 1), stop('quit')], 99)).toBe('clean');
    expect(lastSessionEnd([ev('start', 10, 1), stop('SIGHUP')], 99)).toBe('interrupted');
    expect(lastSessionEnd([ev('start', 10, 1), stop('terminal-closed')], 99)).toBe('interrupted');
  });
});

describe('recover report after a session', () => {
  it('is not an interruption after a clean quit, even on a workspace with half-products', async () => {
    const root = copyDemo();
    await appendJournal(root, { type: 'session', at: 1, kind: 'start', pid: 4242 });
    await appendJournal(root, { type: 'session', at: 2, kind: 'stop', pid: 4242 });
    const r = await recoverReport(root, { dryRun: true, now: new Date(2026, 10, 30, 5, 12) });
    expect(r.halfProducts.length).toBeGreaterThan(0);
    expect(r.interrupted).toBe(false);
  });

  it('is an interruption when the last session never stopped', async () => {
    const root = copyDemo();
    await appendJournal(root, { type: 'session', at: 1, kind: 'start', pid: 4242 });
    const r = await recoverReport(root, { dryRun: true, now: new Date(2026, 10, 30, 5, 12) });
    expect(r.interrupted).toBe(true);
  });
});
