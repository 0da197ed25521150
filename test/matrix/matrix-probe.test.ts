import { afterAll, afterEach, beforeAll, describe, expect } from 'vitest';
import { appendJournal } from '../../src/run/journal/journal.js';
import { checkroomProcess, keyRoom, kill9, launches, matrix, matrixFile, quiet, quit, rows, run, runNext, supervisor, until, workspace, type Cli, type Row } from '../helpers/matrix.js';

// Issue 17's matrix, the half-open probe: researcher's breaker tripped a minute ago (cooldown
// 1 s), so it is half-open, and a half-open breaker admits exactly one probe, whoever asks
// (breaker-gate.ts `passBreaker`). Every research cell hangs, so the probe stays in flight and
// concurrency 4 would let the others through if the breaker did not hold them. Per moment:
// asked in the session that sees it half-open → 1 launch; the probe cancelled by a clean quit
// (a shutdown's cancel: neither a success nor a failure) → the next session's asks get exactly
// one new probe; the probe orphaned by a kill -9 and adopted → it is still the one probe: 0 new.

// One cluster for this file and each row's cleanup, by the shared helper (test/helpers/matrix.ts).
const { missing, track } = matrixFile(beforeAll, afterAll, afterEach);

const UNITS = ['ch01', 'ch02', 'ch03'];

async function halfOpen(r: Row): Promise<string> {
  const ws = workspace(r.executor, { units: UNITS, faults: Object.fromEntries(UNITS.map((u) => [`${u}/research`, 'hang'])), breaker: '{ threshold: 1, cooldown: 1s }' });
  const t = Date.now() - 60_000;
  await appendJournal(ws, { type: 'session', at: t, kind: 'start', pid: 1 });
  await appendJournal(ws, { type: 'breaker', at: t, agent: 'researcher', event: 'failure', summary: 'UNKNOWN: boom' });
  await appendJournal(ws, { type: 'session', at: t + 1, kind: 'stop', pid: 1 });
  return ws;
}

/** The probe in flight in an earlier session, which then quit cleanly or was killed -9. */
async function probeBefore(r: Row, ws: string): Promise<void> {
  if (r.moment === 'after quit') {
    const s = await supervisor(ws);
    void s.launch('ch01', 'research').catch(() => undefined);
    await until('the probe in flight', async () => (await launches(ws)).length === 1 && s.snapshot().runs.some((x) => !!x.pid || !!x.job?.id));
    await quit(s);
  } else {
    // Killed once the agent hangs, as restart-kill9.test.ts does: an agent killed mid-line with
    // its driver ends (reaped, the probe over) — a case of its own (wip/orphans), not this one.
    const p = await checkroomProcess(
      ws,
      "s.subscribe((e) => { if (e.type === 'output' && /waiting for the model/.test(e.line)) say('MIDRUN'); }); void s.launch('ch01', 'research').catch(() => undefined);",
      'MIDRUN',
    );
    await until('the probe journalled', async () => (await launches(ws)).length >= 1, 120_000);
    await kill9(p);
  }
}

/** The entry point asks for everything it can; returns a process to stop once counted. */
async function ask(r: Row, ws: string, expected: number): Promise<Cli | null> {
  let c: Cli | null = null;
  if (r.entry === 'key') {
    const k = await keyRoom(ws);
    const said: string[] = [];
    k.store.subscribe((st) => void (st.message && said.push(st.message.text)));
    for (const move of ['end', 'up']) {
      await k.press('3', move, 'enter');
      if (k.s().dialog) await k.press('y');
    }
    await until('the probe', async () => (await launches(ws)).length >= expected);
    // The ask that lost was told why.
    expect(said.join('\n')).toMatch(/half-open: its one probe is in flight/);
  } else if (r.entry === 'autopilot') {
    const s = await supervisor(ws);
    await s.setAutopilot(true);
    await until('the probe', async () => (await launches(ws)).length >= expected);
    await s.tick();
  } else {
    c = r.entry === 'run' ? run(ws, 'ch02', 'research') : runNext(ws);
    await until('the probe', async () => (await launches(ws)).length >= expected || c!.child.exitCode !== null);
  }
  await quiet();
  return c;
}

const EXPECTED: Record<Row['moment'], number> = { 'same session': 1, 'after quit': 2, 'after kill -9': 1 };

describe('issue 17 matrix: a half-open breaker admits exactly one probe, whoever asks and whenever', () => {
  rows(
    'half-open probe',
    matrix(),
    missing,
    async (r) => {
      const ws = track(await halfOpen(r));
      if (r.moment !== 'same session') await probeBefore(r, ws);
      const c = await ask(r, ws, EXPECTED[r.moment]);
      expect(await launches(ws)).toHaveLength(EXPECTED[r.moment]);
      if (c) {
        c.child.kill('SIGTERM');
        await c.done;
      }
    },
    90_000,
  );
});
