import { afterAll, afterEach, beforeAll, describe, expect } from 'vitest';
import { checkroomProcess, eventsOf, keyRoom, kill9, launches, matrix, matrixFile, quit, rows, run, runNext, supervisor, until, workspace, type Row } from '../helpers/matrix.js';

// Issue 17's matrix, the budget: limits.max_launches { workspace: 1 } is spent by one launch,
// whoever made it and whenever — this session, a session that quit, a session killed -9
// mid-run — and then every entry point refuses the next launch (budget.ts `budgetStopOf`, the
// one decision): the key asks first ("budget spent", Esc keeps to it), autopilot pauses,
// `checkroom run` and `run --next --auto` exit 1 with the figures and the key to raise.

// One cluster for this file and each row's cleanup, by the shared helper (test/helpers/matrix.ts).
const { missing, track } = matrixFile(beforeAll, afterAll, afterEach);

const SPENT = 'launch budget of this workspace used (1 of 1, limits.max_launches.workspace)';

/** The launch that spends the budget, made by an earlier session that quit or was killed -9 mid-run. */
async function spentBefore(r: Row, ws: string): Promise<void> {
  if (r.moment === 'after quit') {
    const s = await supervisor(ws);
    expect((await s.launch('ch01', 'research')).outcome).toBe('done');
    await quit(s);
  } else {
    const p = await checkroomProcess(ws, "void s.launch('ch01', 'research').catch(() => undefined); say('STARTED');", 'STARTED');
    await until('the launch journalled', async () => (await launches(ws)).length === 1);
    await kill9(p);
  }
}

/** The entry point, fresh, on a spent workspace: refused, said with the figures. */
async function refusedFresh(r: Row, ws: string): Promise<void> {
  if (r.entry === 'key') {
    const k = await keyRoom(ws);
    // The last plan row: the first may be the run adopted from a killed session.
    await k.press('3', 'end', 'enter');
    expect(k.s().dialog?.title).toContain('(budget spent)');
    expect(k.s().dialog?.lines.join(' ')).toContain(SPENT);
    await k.press('esc');
  } else if (r.entry === 'autopilot') {
    const s = await supervisor(ws);
    await s.setAutopilot(true);
    await s.tick();
    expect(s.snapshot().autopilot).toMatchObject({ paused: true, reason: expect.stringContaining('limits.max_launches.workspace') });
  } else {
    const res = await (r.entry === 'run' ? run(ws, 'ch02', 'research') : runNext(ws)).done;
    expect(res.status).toBe(1);
    expect(res.stdout).toContain(SPENT);
    // The run a killed session left is the next driver's to watch: the refusing process
    // neither waits for it nor ends it. Before, on Slurm, it waited until its idle watchdog
    // killed the adopted job (STALLED, exit 143) — 60 s later, an agent lost.
    if (r.moment === 'after kill -9') expect(await eventsOf(ws, 'exit')).toEqual([]);
  }
}

/** In one session: the entry's own first launch spends it; its next ask is refused. */
async function spentInSession(r: Row, ws: string): Promise<void> {
  if (r.entry === 'key') {
    const k = await keyRoom(ws);
    await k.press('3', 'enter', 'y');
    await until('the first run to end', async () => (await launches(ws)).length === 1 && k.sup.snapshot().runs.length === 0);
    await k.press('3', 'end', 'enter');
    expect(k.s().dialog?.title).toContain('(budget spent)');
    await k.press('esc');
  } else if (r.entry === 'autopilot') {
    const s = await supervisor(ws);
    await s.setAutopilot(true);
    await until('autopilot paused at the budget, nothing in flight', () => s.snapshot().autopilot.paused && s.snapshot().runs.length === 0);
    expect(s.snapshot().autopilot.reason).toContain('limits.max_launches.workspace');
  } else {
    // `run UNIT STEP`: its own retry (attempt 1 fails with 529 Overloaded) is the next ask.
    const res = await (r.entry === 'run' ? run(ws, 'ch01', 'research') : runNext(ws)).done;
    expect(res.status).toBe(1);
    expect(res.stdout).toContain('limits.max_launches.workspace');
  }
}

describe('issue 17 matrix: a spent budget refuses every entry point, at every moment, on every executor', () => {
  rows(
    'budget',
    matrix(),
    missing,
    async (r) => {
      const ws = track(workspace(r.executor, {
        units: ['ch01', 'ch02'],
        limits: ['  max_launches: { workspace: 1 }'],
        // A watcher calls the killed session's hanging agent STALLED soon: a refusal that waits for it shows.
        idle: '4s',
        faults: r.moment === 'after kill -9' ? { 'ch01/research': 'hang' } : r.entry === 'run' && r.moment === 'same session' ? { 'ch01/research': 'overloaded' } : {},
      }));
      if (r.moment === 'same session') await spentInSession(r, ws);
      else {
        await spentBefore(r, ws);
        await refusedFresh(r, ws);
      }
      expect(await launches(ws)).toHaveLength(1);
    },
    90_000,
  );
});
