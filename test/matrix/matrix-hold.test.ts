import { afterAll, afterEach, beforeAll, describe, expect } from 'vitest';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../src/pipeline/config/config.js';
import { openSupervisor } from '../../src/run/supervisor/supervisor.js';
import { settle } from '../helpers/settle.js';
import { checkroomProcess, eventsOf, keyRoom, kill9, launches, matrix, matrixFile, quiet, quit, rows, run, runNext, setFaults, supervisor, until, workspace, type KeyRoom, type Row } from '../helpers/matrix.js';
import type { Supervisor } from '../../src/run/supervisor/supervisor.js';

// Issue 17's matrix, cancel-hold: the operator's cancel (key x, cancelCell) — and on Slurm an
// outside scancel — holds the cell in the ledger (ledger-fold.ts `hold`), so autopilot and
// `run --next --auto` leave it alone in the same session, after a quit and after a kill -9;
// launching it by hand (Enter, `checkroom run UNIT STEP`) is the release, journalled.

// One cluster for this file and each row's cleanup, by the shared helper (test/helpers/matrix.ts).
const { missing, cluster, track } = matrixFile(beforeAll, afterAll, afterEach);

const CELL = 'ch01/research';

/** The hold as the ledger folds it from the journal, read by a read-only supervisor (as a next session would). */
async function holdOf(ws: string): Promise<{ why: string } | null> {
  const s = await openSupervisor({ root: ws, config: await loadConfig(ws), readonly: true });
  try {
    return s.snapshot().ledger.cells[CELL]?.hold ?? null;
  } finally {
    await s.close();
  }
}

const cancelledExit = async (ws: string): Promise<boolean> => (await eventsOf(ws, 'exit')).some((e) => e.class === 'CANCELLED');
const running = async (ws: string, s?: Pick<Supervisor, 'snapshot'>): Promise<void> =>
  until('the agent running', async () => (await launches(ws)).length === 1 && (!s || s.snapshot().runs.some((r) => !!r.pid || !!r.job?.id)));

/** The operator's cancel, by the entry's own session (same session) or by an earlier one. Returns the session to go on with. */
async function cancelled(r: Row, ws: string): Promise<{ k?: KeyRoom; s?: Supervisor }> {
  if (r.moment === 'after kill -9') {
    const p = await checkroomProcess(
      ws,
      `const r = s.launch('ch01', 'research').catch(() => undefined);
while (!s.snapshot().runs.some((x) => x.pid || x.job?.id)) await new Promise((t) => setTimeout(t, 50));
s.cancel('ch01/research');
await r;
say('CANCELLED');`,
      'CANCELLED',
    );
    await kill9(p);
    return {};
  }
  if (r.moment === 'same session' && r.entry === 'key') {
    const k = await keyRoom(ws);
    await k.press('3', 'enter', 'y');
    await running(ws, k.sup);
    // x acts on the run the store has seen (a Slurm job has no pid: its job id).
    await until('the store to show the run', () => !!k.s().agents.snap?.runs.some((x) => !!x.pid || !!x.job?.id));
    await k.press('g', 'x', 'y');
    await until('the exit, CANCELLED', () => cancelledExit(ws));
    // The exit is journalled before the flight ends: a launch pressed in between is refused
    // as "already running" (seen under CI load on Slurm, where the cancel's end takes longer).
    await until('the flight to end', () => k.sup.snapshot().runs.length === 0 && k.sup.snapshot().waiting.length === 0);
    return { k };
  }
  if (r.moment === 'same session' && r.entry !== 'autopilot') {
    // `checkroom run` has no cancel key: on Slurm the cancel comes from outside (scancel).
    const c = r.entry === 'run' ? run(ws, 'ch01', 'research') : runNext(ws);
    await running(ws);
    const job = (await launches(ws))[0]!.jobId!;
    cluster()!.run(['scancel', job]);
    const res = await c.done;
    // Not proven done, and held: exit 1, and said (before: `run --next --auto` exited 0).
    expect(res.status).toBe(1);
    if (r.entry === 'run --next --auto') expect(res.stdout).toContain('failed, escalated or cancelled: ch01 research (cancelled: held until launched by hand)');
    return {};
  }
  const s = await supervisor(ws);
  const ran = s.launch('ch01', 'research');
  await running(ws, s);
  expect(s.cancel(CELL)).toBe(true);
  expect((await ran).outcome).toBe('cancelled');
  if (r.moment === 'same session') return { s };
  await quit(s);
  return {};
}

/** Then the entry point asks: the by-hand ones launch and release, autopilot and `--next` leave it. */
async function thenAsk(r: Row, ws: string, at: { k?: KeyRoom; s?: Supervisor }): Promise<void> {
  if (r.entry === 'key') {
    const k = at.k ?? (await keyRoom(ws));
    const said: string[] = [];
    k.store.subscribe((st) => void (st.message && said.push(st.message.text)));
    await k.press('3', 'end', 'enter');
    if (k.s().dialog) await k.press('y');
    await until('the launch by hand', async () => (await launches(ws)).length === 2).catch((err: Error) => {
      throw new Error(`${err.message}; the control room said: ${said.join(' | ')}`);
    });
  } else if (r.entry === 'autopilot') {
    const s = at.s ?? (await supervisor(ws));
    await s.setAutopilot(true);
    await s.tick();
    await quiet();
    expect(await launches(ws)).toHaveLength(1);
    expect(s.snapshot().ledger.cells[CELL]?.hold).toBeTruthy();
    return;
  } else if (r.entry === 'run') {
    const res = await run(ws, 'ch01', 'research').done;
    expect(res.status).toBe(0);
  } else {
    await runNext(ws).done;
    expect(await launches(ws)).toHaveLength(1);
    expect(await holdOf(ws)).toBeTruthy();
    return;
  }
  expect(await launches(ws, CELL)).toHaveLength(2);
  expect((await eventsOf(ws, 'decision')).filter((d) => d.kind === 'release')).toMatchObject([{ unit: 'ch01', step: 'research', note: 'launched by the operator' }]);
}

const na = (r: Row): string | undefined =>
  r.moment === 'same session' && r.executor === 'local' && (r.entry === 'run' || r.entry === 'run --next --auto')
    ? '`checkroom run` has no cancel key, and a local agent killed from outside exits by a signal, not CANCELLED (only a scheduler reports a cancel); its own SIGINT/SIGTERM is a shutdown\'s cancel, which is no hold'
    : undefined;

describe('issue 17 matrix: a cancelled cell stays held for autopilot and --next, released by a launch by hand', () => {
  rows(
    'cancel-hold',
    matrix(na),
    missing,
    async (r) => {
      const ws = track(workspace(r.executor, { units: ['ch01'], faults: { [CELL]: 'hang' } }));
      const at = await cancelled(r, ws);
      // The hold is the ledger's, from the journal: what every later session reads.
      expect(await holdOf(ws)).toMatchObject({ why: expect.stringMatching(/cancel/) });
      // The next attempt would succeed, the half-product is gone and the files are quiet: only the hold stands in the way.
      setFaults(ws, {});
      rmSync(join(ws, 'research', 'ch01-research.md'), { force: true });
      settle(ws);
      if (r.moment === 'same session' && (r.entry === 'run' || r.entry === 'run --next --auto')) {
        // The `run` session has ended with the cell held: nothing launched it again.
        expect(await launches(ws)).toHaveLength(1);
        return;
      }
      await thenAsk(r, ws, at);
    },
    90_000,
  );
});
