import { afterAll, afterEach, beforeAll, describe, expect } from 'vitest';
import { checkroomProcess, eventsOf, keyRoom, kill9, launches, matrix, matrixFile, quiet, quitRoom, rows, supervisor, until, workspace, type Row } from '../helpers/matrix.js';

// Issue 17's matrix, leave: a run launched by a key or by autopilot, left running at the quit
// (q then l: `close({ leave: true })` through the entry's agents-open.ts), is listed in the
// session stop with its executor and job id, and the next start adopts it at the same attempt
// — also when that next checkroom is itself killed -9 and a third one starts. Nothing is
// launched twice: autopilot in the adopting session leaves the cell to its adopted run.

// One cluster for this file and each row's cleanup, by the shared helper (test/helpers/matrix.ts).
const { missing, track } = matrixFile(beforeAll, afterAll, afterEach);

/** The entry launches the cell and the operator quits with `l` (leave running). */
async function leftAtQuit(r: Row, ws: string): Promise<void> {
  if (r.entry === 'key') {
    const k = await keyRoom(ws);
    await k.press('3', 'enter', 'y');
    await until('the run started', () => k.sup.snapshot().runs.some((x) => !!x.pid || !!x.job?.id));
    await k.press('q', 'l');
    expect(k.s().agents.quitMode).toBe('leave');
    await quitRoom(k);
  } else {
    const s = await supervisor(ws);
    await s.setAutopilot(true);
    await until('the run started', () => s.snapshot().runs.some((x) => !!x.pid || !!x.job?.id));
    // What agents-open.ts does for `l`: close({ leave: true }).
    expect(await s.close({ leave: true, reason: 'quit' })).toHaveLength(1);
  }
}

const na = (r: Row): string | undefined =>
  r.entry === 'run' || r.entry === 'run --next --auto'
    ? '`checkroom run` has no quit dialog: its end and SIGINT/SIGTERM/SIGHUP cancel its runs (a shutdown\'s cancel, run-command.ts); nothing is left running'
    : r.moment === 'same session'
      ? 'leaving is what a quit does: inside one session nothing is left'
      : undefined;

describe('issue 17 matrix: a run left running at the quit is adopted at the same attempt by the next start', () => {
  rows(
    'leave',
    matrix(na),
    missing,
    async (r) => {
      const ws = track(workspace(r.executor, { units: ['ch01'], faults: { 'ch01/research': 'hang' } }));
      await leftAtQuit(r, ws);
      const [l] = await launches(ws);
      const stop = (await eventsOf(ws, 'session')).filter((e) => e.kind === 'stop').at(-1)!;
      expect(stop.left).toMatchObject([{ runId: l!.runId, unit: 'ch01', step: 'research', ...(r.executor === 'slurm' ? { executor: 'slurm', jobId: l!.jobId } : {}) }]);
      if (r.moment === 'after kill -9') {
        // A second checkroom adopts it, and is killed -9 while watching it.
        const p = await checkroomProcess(ws, "while (s.snapshot().runs.length === 0) await new Promise((t) => setTimeout(t, 50)); say('ADOPTED');", 'ADOPTED');
        await kill9(p);
      }
      const s = await supervisor(ws);
      await until('the adoption', () => s.snapshot().runs.length === 1);
      expect(s.snapshot().runs).toMatchObject([{ runId: l!.runId, unit: 'ch01', step: 'research', attempt: 1, origin: 'adopted' }]);
      if (r.entry === 'autopilot') await s.setAutopilot(true);
      await s.tick();
      await quiet();
      expect(await launches(ws)).toHaveLength(1);
      expect(await eventsOf(ws, 'exit')).toEqual([]);
    },
    90_000,
  );
});
