import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { createLiveWorkspace, type LiveWorkspace } from '../../../src/live/live-workspace.js';
import { createAppStore, disposeStore, type AppStore } from '../../../src/ui/store/store.js';
import { recoverReport, type RecoverReport } from '../../../src/recover/report.js';
import { loadRecoveryState } from '../../../src/recover/load.js';
import { appendJournal } from '../../../src/run/journal/journal.js';
import { PINNED_NOW, until } from '../../helpers/store.js';
import { copyDemo } from '../../helpers/workspace.js';

// Issue 10 goal: control room RSS at 50k files ≤ 150 MB. The recover report a control room
// opens by itself after an interrupted session, and the letter it writes at milestones and on
// quit, read and derived the whole workspace a second time (+95 MB at peak at 50k files). They
// now use the live workspace as read (LiveWorkspace.read): the same verdicts, no second read.

let live: LiveWorkspace | null = null;
let store: AppStore | null = null;
afterEach(async () => {
  if (store) {
    await store.getState().idle();
    disposeStore(store);
  }
  await live?.close();
  live = null;
  store = null;
});

/** The report without the moment its scan was taken: what a second read changes, and nothing else may. */
const verdicts = (r: RecoverReport) => ({ ...r, sources: { ...r.sources, scan: { ...r.sources.scan, scannedAt: 0 } } });

describe('recovery from the live workspace', () => {
  it('gives the report a fresh read of the disk gives', async () => {
    const root = copyDemo();
    live = await createLiveWorkspace(root, { watch: true });
    const now = PINNED_NOW();
    const fromLive = await recoverReport(root, { dryRun: true, now, read: await live.read() });
    const fromDisk = await recoverReport(root, { dryRun: true, now });
    expect(fromLive.halfProducts.length).toBeGreaterThan(0);
    expect(verdicts(fromLive)).toEqual(verdicts(fromDisk));
  });

  it('derives the cells the journal says are running, as a fresh read does', async () => {
    const root = copyDemo();
    // A launch with no exit whose process is alive (this one): the journal's live run.
    await appendJournal(root, {
      type: 'launch',
      at: 1_000,
      runId: 'ch09-research-a1',
      unit: 'ch09',
      step: 'research',
      agent: 'researcher',
      attempt: 1,
      argv: ['node', 'agent.mjs'],
      cwd: root,
      logPath: join(root, '.checkroom', 'runs', 'ch09-research-a1.log'),
      pid: process.pid,
      procStart: null,
      outputPath: join(root, 'research', 'ch09-research.md'),
    });
    live = await createLiveWorkspace(root, { watch: true });
    const now = PINNED_NOW().getTime();
    const fromLive = await loadRecoveryState(root, now, await live.read());
    const fromDisk = await loadRecoveryState(root, now);
    const cell = (s: typeof fromLive) => s.state.cells.find((c) => c.unit === 'ch09' && c.step === 'research');
    expect(cell(fromLive)?.status).toBe('running');
    expect(live.state.cells.find((c) => c.unit === 'ch09' && c.step === 'research')?.status).not.toBe('running');
    expect({ ...fromLive.state, scannedAt: 0 }).toEqual({ ...fromDisk.state, scannedAt: 0 });
  });

  it("the control room's own report describes the scan on its screen: the workspace is not read again", async () => {
    const root = copyDemo();
    await appendJournal(root, { type: 'session', at: 1, kind: 'start', pid: 4242 });
    live = await createLiveWorkspace(root, { watch: true });
    const scannedAt = live.state.scannedAt;
    // A second read would be stamped later than the live one.
    await until(() => Date.now() > scannedAt, 'the clock to move past the scan');
    store = createAppStore({ live, now: PINNED_NOW, session: { recoverOnStart: true } });
    const report = await until(() => store!.getState().recovery.recover?.report, 'the recover report to open');
    expect(report.interrupted).toBe(true);
    expect(report.sources.scan.scannedAt).toBe(scannedAt);
  });
});
