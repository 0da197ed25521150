import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../src/pipeline/config/config.js';
import { openSupervisor, type Supervisor, type SupervisorEvent } from '../../src/run/supervisor/supervisor.js';
import type { PauseRequest } from '../../src/run/supervisor/pause-action.js';
import { pauseOf } from '../../src/operator/pause.js';
import { checkroomProcess, cli, eventsOf, keyRoom, kill9, launches, matrix, matrixFile, quiet, quit, rows, run, runNext, supervisor, until, workspace, type KeyRoom, type Row } from '../helpers/matrix.js';
import { closeStores } from '../helpers/store.js';

// Drain and pause (docs/drain.md), the one decision (run/policy/pause.ts) asked by every
// launch: drained, no entry point starts anything — the control room's keys, autopilot,
// `checkroom run`, `run --next --auto` — on either executor, in the same session, after a quit
// and after a kill -9 of the driver (the drain is the journal's, folded by the ledger). Runs
// in flight are never killed: they finish, and the driver says "drained" once.

const { missing, track } = matrixFile(beforeAll, afterAll, afterEach);
afterEach(() => closeStores());

const DRAIN: PauseRequest = { scope: 'drain', target: null, on: true, by: 'root via test' };

/** The drain as the next session reads it: a read-only supervisor's ledger. */
async function drainOf(ws: string) {
  const s = await openSupervisor({ root: ws, config: await loadConfig(ws), readonly: true });
  try {
    return s.snapshot().ledger.pause.drain;
  } finally {
    await s.close();
  }
}

/** The drain set by the row's moment: its own session, one that quit, one killed -9. */
async function drainFor(r: Row, ws: string): Promise<{ k?: KeyRoom; s?: Supervisor }> {
  if (r.moment === 'after kill -9') {
    const p = await checkroomProcess(ws, `await s.setPause(${JSON.stringify(DRAIN)});\nsay('DRAINING');`, 'DRAINING');
    await kill9(p);
    return {};
  }
  if (r.moment === 'after quit') {
    const s = await supervisor(ws);
    await s.setPause(DRAIN);
    await quit(s);
    return {};
  }
  if (r.entry === 'key') {
    const k = await keyRoom(ws);
    await k.press(':', ...'drain', '\r');
    await until('the drain journalled', async () => (await eventsOf(ws, 'pause')).length === 1);
    return { k };
  }
  if (r.entry === 'autopilot') {
    const s = await supervisor(ws);
    await s.setPause(DRAIN);
    return { s };
  }
  // `checkroom run` has no session before it starts: the headless command drains, under the driver lock.
  const res = await cli(['drain', ws]).done;
  expect(res.stdout).toContain('drained: nothing runs');
  return {};
}

/** The entry point asks for a launch; nothing starts, and it says why. */
async function thenAsk(r: Row, ws: string, at: { k?: KeyRoom; s?: Supervisor }): Promise<void> {
  if (r.entry === 'key') {
    const k = at.k ?? (await keyRoom(ws));
    await k.press('3', 'enter');
    if (k.s().dialog) await k.press('y');
    await until('the refusal said', () => /draining since .* no new launch/.test(k.s().message?.text ?? ''));
  } else if (r.entry === 'autopilot') {
    const s = at.s ?? (await supervisor(ws));
    await s.setAutopilot(true);
    await s.tick();
    await quiet();
  } else if (r.entry === 'run') {
    const res = await run(ws, 'ch01', 'research').done;
    expect(res.status).toBe(1);
    expect(res.stdout).toMatch(/cannot run.*ch01 research is not launched: draining since .*undrain with :undrain or checkroom drain --off/);
  } else {
    const res = await runNext(ws).done;
    expect(res.status).toBe(1);
    expect(res.stdout).toMatch(/draining: ch01 research: draining since/);
  }
  expect(await launches(ws)).toHaveLength(0);
}

describe('issue 21 matrix: drained, no entry point launches, on either executor, after a quit and a kill -9', () => {
  rows(
    'drain',
    matrix(),
    missing,
    async (r) => {
      const ws = track(workspace(r.executor, { units: ['ch01'] }));
      const at = await drainFor(r, ws);
      // The journal's, folded by the ledger: what every later session reads.
      expect(await drainOf(ws)).toMatchObject({ by: expect.stringMatching(/via/) });
      await thenAsk(r, ws, at);
    },
    90_000,
  );
});

/** A run that takes a few seconds and then proves itself: the fake agent's `chatty` fault. */
const slowWorkspace = (units: string[]): string => {
  const ws = track(workspace('local', { units, faults: { 'ch01/research': 'chatty' } }));
  const yaml = join(ws, 'checkroom.yaml');
  writeFileSync(yaml, readFileSync(yaml, 'utf8').replace("CHECKROOM_FAKE_SPEED: '10'", "CHECKROOM_FAKE_SPEED: '10', CHECKROOM_FAKE_CHATTY_MS: '3000'"));
  return ws;
};

describe('drain lets what runs finish and says drained once', () => {
  it('same session: the run in flight ends proven, then drained (journal, event, the operator model); nothing else starts', async () => {
    const ws = slowWorkspace(['ch01', 'ch02']);
    const s = await supervisor(ws);
    const seen: SupervisorEvent[] = [];
    s.subscribe((e) => seen.push(e));
    const ran = s.launch('ch01', 'research');
    await until('the run started', async () => (await launches(ws)).length === 1);
    expect(await s.setPause(DRAIN)).toBe('draining: no new launch; 1 running, left to finish');
    expect(pauseOf(s.snapshot().ledger, [{} as never]).words).toBe('DRAINING (1 running)');
    await s.setAutopilot(true);
    expect((await ran).outcome).toBe('done');
    await until('drained journalled', async () => (await eventsOf(ws, 'drained')).length === 1);
    await until('drained announced', () => seen.some((e) => e.type === 'drained'));
    expect(pauseOf(s.snapshot().ledger, []).words).toBe('DRAINED');
    await quiet();
    expect(await launches(ws)).toHaveLength(1);
    expect(seen.filter((e) => e.type === 'drained')).toHaveLength(1);
    expect(await eventsOf(ws, 'drained')).toHaveLength(1);
  }, 60_000);

  it('after a kill -9 of the driver: the next driver adopts the run, is still draining, and says drained when it ends', async () => {
    const ws = slowWorkspace(['ch01', 'ch02']);
    const p = await checkroomProcess(
      ws,
      `void s.launch('ch01', 'research').catch(() => undefined);
while (!s.snapshot().runs.some((x) => x.pid)) await new Promise((t) => setTimeout(t, 50));
await s.setPause(${JSON.stringify(DRAIN)});
say('DRAINING');`,
      'DRAINING',
    );
    await kill9(p);
    const s = await supervisor(ws);
    expect(s.snapshot().ledger.pause.drain).toMatchObject({ drainedAt: null });
    await s.setAutopilot(true);
    await until('the adopted run exits, proven', async () => (await eventsOf(ws, 'exit')).some((e) => e.class === 'SUCCESS'), 60_000);
    await until('drained journalled by the new driver', async () => (await eventsOf(ws, 'drained')).length === 1);
    await quiet();
    expect(await launches(ws)).toHaveLength(1);
  }, 90_000);
});

describe('pause of one agent holds only its cells', () => {
  it('checkroom pause --agent writer (no driver: under the lock); autopilot runs research, not drafts; resume lets the draft go', async () => {
    const ws = track(workspace('local', { units: ['ch01', 'ch02'] }));
    // ch01's research is done: its draft (agent writer) is runnable, as ch02's research (researcher) is.
    mkdirSync(join(ws, 'research'), { recursive: true });
    writeFileSync(join(ws, 'research', 'ch01-research.md'), `# ch01 research\n\n${'Notes on the page cache and its failure modes. '.repeat(8)}\n\n<!-- RESEARCH_COMPLETE -->\n`);
    const res = await cli(['pause', ws, '--agent', 'writer']).done;
    expect(res.stdout).toContain('paused agent writer: no new launch of it; what runs finishes');
    const bad = await cli(['pause', ws, '--agent', 'nobody']).done;
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain("no agent 'nobody' in checkroom.yaml");
    const s = await supervisor(ws);
    await s.setAutopilot(true);
    await until('ch02 research launched', async () => (await launches(ws, 'ch02/research')).length === 1);
    await until('ch02 research done', async () => (await eventsOf(ws, 'exit')).some((e) => e.unit === 'ch02' && e.class === 'SUCCESS'));
    await quiet();
    expect(await launches(ws, 'ch01/draft')).toHaveLength(0);
    await expect(s.launch('ch01', 'draft')).rejects.toThrow(/agent writer paused at .* by root via checkroom pause; resume with :resume agent=writer or checkroom resume --agent writer/);
    expect(await s.setPause({ scope: 'agent', target: 'writer', on: false, by: 'root via test' })).toBe('resumed agent writer');
    await until('ch01 draft launched after resume', async () => (await launches(ws, 'ch01/draft')).length === 1);
  }, 90_000);
});

describe('a retry the supervisor scheduled is a new launch: drain stops it', () => {
  it('a rate-limited attempt, drain during its backoff: no second attempt, the cell ends failed (not escalated), drained', async () => {
    const ws = track(workspace('local', { units: ['ch01'], faults: { 'ch01/research': 'rate_limit_twice' } }));
    const s = await supervisor(ws);
    // Drained in the same turn as the retry is announced: its backoff (retry-after 2 s) has not ended.
    s.subscribe((e) => void (e.type === 'retry' && s.setPause(DRAIN)));
    const r = await s.launch('ch01', 'research');
    expect(r.outcome).toBe('failed');
    expect(r.reason).toMatch(/^retries stopped: draining since .* no new launch/);
    expect(await launches(ws)).toHaveLength(1);
    expect(await eventsOf(ws, 'escalate')).toHaveLength(0);
    await until('drained journalled', async () => (await eventsOf(ws, 'drained')).length === 1);
  }, 60_000);
});

describe('p and the : commands in the control room', () => {
  it('p pauses the selected cell in Plan and resumes it; :pause agent=… and :resume all; a bad target is said', async () => {
    const ws = track(workspace('local', { units: ['ch01'] }));
    const k = await keyRoom(ws);
    await k.press('3', 'p');
    await until('the cell paused', () => k.sup.snapshot().ledger.pause.rules.length === 1);
    expect(k.sup.snapshot().ledger.pause.rules[0]).toMatchObject({ scope: 'cell', target: 'ch01/research', by: expect.stringMatching(/ via p$/) });
    await until('said', () => /paused cell ch01\/research/.test(k.s().message?.text ?? ''));
    await k.press('p');
    await until('the cell resumed', () => k.sup.snapshot().ledger.pause.rules.length === 0);
    await k.press(':', ...'pause agent=researcher', '\r');
    await until('the agent paused', () => k.sup.snapshot().ledger.pause.rules.some((r) => r.scope === 'agent' && r.target === 'researcher'));
    await k.press(':', ...'pause agent=ghost', '\r');
    await until('the refusal', () => /no agent 'ghost' in checkroom.yaml/.test(k.s().message?.text ?? ''));
    await k.press(':', ...'pause writer', '\r');
    await until('the usage', () => /names nothing to pause/.test(k.s().message?.text ?? ''));
    await k.press(':', ...'resume all', '\r');
    await until('everything resumed', () => k.sup.snapshot().ledger.pause.rules.length === 0);
    expect((await eventsOf(ws, 'pause')).map((e) => `${e.on ? '+' : '-'}${e.scope}:${e.target}`)).toEqual(['+cell:ch01/research', '-cell:ch01/research', '+agent:researcher', '-all:null']);
  }, 60_000);
});
