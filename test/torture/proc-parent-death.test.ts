import { afterAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readJournal, type LaunchEvent, type SessionEvent } from '../../src/run/journal/journal.js';
import { loadConfig } from '../../src/pipeline/config/config.js';
import { openSupervisor } from '../../src/run/supervisor/supervisor.js';
import { isSameProcessAlive, procStartTime } from '../../src/run/process/proc.js';
import { copyDemo, REPO } from '../helpers/workspace.js';
import { hasTmux, TmuxSession } from '../helpers/tmux.js';

// Issue 8 item 4 (proc): the control room dies — SIGINT, SIGTERM, SIGHUP, its terminal closed
// under it (tmux kill-session hangs up the pty, as an SSH drop does) — with live agents that
// ignore SIGTERM and have a setsid'd child holding stdout. Afterwards no agent process is
// left (pids checked through /proc), the lock is released, the journal has the stop with its
// reason, and (where the pane survives) the terminal is restored. "Leave running" leaves them
// running, journaled, and their output keeps reaching the log after checkroom is gone.
// Issue 17 item 3 changed the hang-up cases: by default they leave the runs (adopted by the
// next start); only `on_hangup: stop` cancels them as before.

const CLI = join(REPO, JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).bin.checkroom);
const tmuxMissing = !hasTmux();

// Every process of the agent appends its pid to agent-pids.txt in the workspace.
const STUBBORN = `
import { spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
const ws = process.argv[process.argv.indexOf('--workspace') + 1];
const file = join(ws, 'agent-pids.txt');
process.on('SIGTERM', () => {});
appendFileSync(file, process.pid + '\\n');
const io = { stdio: ['ignore', 'inherit', 'inherit'] };
spawn('sh', ['-c', 'trap "" TERM; echo $$ >> "$0"; while :; do sleep 1; done', file], io);
spawn('setsid', ['sh', '-c', 'echo $$ >> "$0"; exec sleep 1000', file], io);
let n = 0;
setInterval(() => console.log('working ' + ++n), 200);
`;

const workspace = (onHangup?: 'stop'): string => {
  const dir = copyDemo();
  writeFileSync(join(dir, 'agents', 'stubborn.mjs'), STUBBORN);
  const yaml = join(dir, 'checkroom.yaml');
  writeFileSync(yaml, readFileSync(yaml, 'utf8').replaceAll('agents/fake-agent.mjs', 'agents/stubborn.mjs') + (onHangup ? `on_hangup: ${onHangup}\n` : ''));
  return dir;
};

type Proc = { pid: number; start: number | null };
const agentPids = (dir: string): Proc[] => {
  const f = join(dir, 'agent-pids.txt');
  if (!existsSync(f)) return [];
  return readFileSync(f, 'utf8').split(/\s+/).filter(Boolean).map((p) => ({ pid: Number(p), start: procStartTime(Number(p)) }));
};
const alive = (ps: Proc[]): Proc[] => ps.filter((p) => p.start !== null && isSameProcessAlive(p.pid, p.start));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const until = async (ok: () => boolean, what: string, ms = 45_000): Promise<void> => {
  const t0 = Date.now();
  while (!ok()) {
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
};

const lastStop = async (dir: string): Promise<SessionEvent | undefined> =>
  (await readJournal(dir)).events.filter((e): e is SessionEvent => e.type === 'session' && e.kind === 'stop').at(-1);

/** The control room in tmux with live agents: autopilot on, at least two agents with their children up. */
const dirs: string[] = [];
const start = async (sessions: TmuxSession[], onHangup?: 'stop') => {
  const dir = workspace(onHangup);
  dirs.push(dir);
  const t = new TmuxSession(`sh -c 'node ${CLI} ${dir}; echo EXITED-$?; sleep 600'`);
  sessions.push(t);
  await t.waitFor(/^auto off · live: /m);
  t.keys('3');
  await t.waitFor(/› P1 /);
  t.keys('a');
  await t.waitFor('Autopilot: the exact command');
  t.keys('y');
  // Two agents of different kinds, each with its TERM-ignoring child and its setsid escapee.
  await until(() => alive(agentPids(dir)).length >= 6, 'six live agent processes');
  const shell = t.tmux('display-message', '-p', '-t', 'cr', '#{pane_pid}').trim();
  const node = Number(execFileSync('pgrep', ['-P', shell], { encoding: 'utf8' }).trim().split('\n')[0]);
  return { dir, t, node, procs: agentPids(dir) };
};

describe.skipIf(tmuxMissing)('torture: parent death with live agents (proc, tmux 80×24)', () => {
  const sessions: TmuxSession[] = [];
  const everyPid: Proc[] = [];
  // Whatever a test left (a failing one, or the runs left running on purpose) must not outlive
  // the suite: every pid any agent process recorded, and the relays.
  afterAll(() => {
    sessions.forEach((s) => s.kill());
    for (const p of alive([...everyPid, ...dirs.flatMap(agentPids)])) process.kill(p.pid, 'SIGKILL');
  });

  // A dropped terminal with `on_hangup: stop` (issue 17 item 3) and SIGINT/SIGTERM always: cancelled, as before.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const how = signal === 'SIGHUP' ? ' (on_hangup: stop)' : '';
    it(`${signal}${how}: no agent process left, lock released, stop journaled, terminal restored`, { timeout: 120_000 }, async () => {
      const { dir, t, node, procs } = await start(sessions, signal === 'SIGHUP' ? 'stop' : undefined);
      everyPid.push(...procs);
      process.kill(node, signal);
      await t.waitFor('EXITED-', 45_000);
      everyPid.push(...agentPids(dir));
      expect(alive(agentPids(dir))).toEqual([]);
      expect(alive(procs)).toEqual([]);
      expect(existsSync(join(dir, '.checkroom', 'driver.lock'))).toBe(false);
      expect((await lastStop(dir))?.reason).toBe(signal);
      expect(t.alternateOn()).toBe(false);
      expect(t.tmux('display-message', '-p', '-t', 'cr', '#{cursor_flag}').trim()).toBe('1');
    });
  }

  // Issue 17 item 3: with the default \`on_hangup: leave\` a dropped terminal — SIGHUP, or the
  // pty closed under it (tmux kill-session, as an SSH drop does) — leaves the runs to their
  // keepers: journaled with the stop, alive, and adopted by the next start at the same attempt.
  // Before, every agent was cancelled (journaled CANCELLED) and ran again as attempt 2.
  const leftAndAdopted = async (dir: string, procs: Proc[], reasons: string[]): Promise<void> => {
    const stop = await lastStop(dir);
    expect(reasons).toContain(stop?.reason);
    expect(stop?.left?.length).toBeGreaterThanOrEqual(2);
    for (const l of stop!.left!) {
      expect(isSameProcessAlive(l.pid!, l.procStart)).toBe(true);
      expect(l.relayPid).not.toBeNull();
      everyPid.push({ pid: l.relayPid!, start: procStartTime(l.relayPid!) });
    }
    await sleep(1000);
    expect(alive(procs)).toHaveLength(procs.length);
    const j = (await readJournal(dir)).events;
    expect(j.filter((e) => e.type === 'exit')).toEqual([]);
    const launches = j.filter((e): e is LaunchEvent => e.type === 'launch');
    const s = await openSupervisor({ root: dir, config: await loadConfig(dir) });
    try {
      const runs = s.snapshot().runs.map((r) => `${r.runId} attempt ${r.attempt} ${r.origin ?? 'own'}`).sort();
      expect(runs).toEqual(launches.map((l) => `${l.runId} attempt ${l.attempt} adopted`).sort());
      expect(launches.every((l) => l.attempt === 1)).toBe(true);
      expect((await readJournal(dir)).events.filter((e) => e.type === 'reaped' || e.type === 'exit')).toEqual([]);
    } finally {
      await s.close({ cancel: true });
    }
  };

  it('SIGHUP (on_hangup default: leave): the runs are left, journaled, adopted by the next start at the same attempt', { timeout: 120_000 }, async () => {
    const { dir, t, node, procs } = await start(sessions);
    everyPid.push(...procs);
    process.kill(node, 'SIGHUP');
    await t.waitFor('EXITED-', 45_000);
    expect(existsSync(join(dir, '.checkroom', 'driver.lock'))).toBe(false);
    expect(t.alternateOn()).toBe(false);
    // Said after the fact, on the terminal that is still there.
    expect(t.capture()).toMatch(/\d+ runs left running; the next checkroom on this workspace adopts them/);
    await leftAndAdopted(dir, procs, ['SIGHUP']);
  });

  it('a closed terminal (tmux kill-session, on_hangup default): the runs are left and adopted', { timeout: 120_000 }, async () => {
    const { dir, t, node, procs } = await start(sessions);
    everyPid.push(...procs);
    const me = procStartTime(node);
    t.kill();
    await until(() => !isSameProcessAlive(node, me), 'the control room to end');
    expect(existsSync(join(dir, '.checkroom', 'driver.lock'))).toBe(false);
    await leftAndAdopted(dir, procs, ['SIGHUP', 'terminal-closed']);
  });

  it('leave running: the agents survive checkroom, are journaled with the stop, and keep logging', { timeout: 120_000 }, async () => {
    const { dir, t, procs } = await start(sessions);
    everyPid.push(...procs);
    t.keys('q');
    await t.waitFor('l: leave them running');
    t.keys('l');
    await t.waitFor('EXITED-0', 45_000);
    expect(existsSync(join(dir, '.checkroom', 'driver.lock'))).toBe(false);
    const stop = await lastStop(dir);
    expect(stop?.reason).toBe('quit');
    expect(stop?.left?.length).toBeGreaterThanOrEqual(2);
    for (const l of stop!.left!) {
      expect(isSameProcessAlive(l.pid!, l.procStart)).toBe(true);
      expect(l.relayPid).not.toBeNull();
      everyPid.push({ pid: l.relayPid!, start: procStartTime(l.relayPid!) });
    }
    // Every agent process is still there: nothing was killed, nothing died of EPIPE.
    await sleep(1000);
    expect(alive(procs)).toHaveLength(procs.length);
    // Output written after checkroom left reaches the log through the relay.
    const log = stop!.left![0]!.logPath;
    const after = () => readFileSync(log, 'utf8').split('checkroom left the run running')[1] ?? '';
    await until(() => /working \d+/.test(after()), 'output after the handover in the log');
  });
});
