import { afterEach, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fakeAgentWorkspace, REPO } from '../helpers/workspace.js';
import { loadConfig } from '../../src/pipeline/config/config.js';
import { appendJournal, readJournal, type LaunchEvent } from '../../src/run/journal/journal.js';
import { isSameProcessAlive, procStartTime } from '../../src/run/process/proc.js';
import { readRunToken, RUN_TOKEN_VAR } from '../../src/run/process/members.js';
import { openSupervisor, type Supervisor, type SupervisorEvent } from '../../src/run/supervisor/supervisor.js';

// Issue 16 item 4: kill -9 leaves nothing behind. The fake agent's `escape` fault starts a
// helper that leaves the group and the session (setsid), closes the run's pipes, ignores
// SIGTERM and forks another of itself when it gets one: only the run token in its environment
// ties it to the run. The built checkroom (a real process) launches it and is kill -9'd; the
// next start adopts the live run (then a cancel, or the leader's own end, must stop every
// token bearer) or ends a run whose leader is gone (the restart's clean-up must stop them).
// A pid the journal names that is now another process (start time differs) is never signalled.

const CLI = join(REPO, JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).bin.checkroom as string);

const spawned: ChildProcess[] = [];
const tokens: string[] = [];
const opened: Supervisor[] = [];

/** Live (non-zombie) processes whose environment carries the run token: what must not survive. */
const bearers = (token: string): number[] => {
  const entry = `${RUN_TOKEN_VAR}=${token}`;
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid <= 0) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) continue;
      if (readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(entry)) found.push(pid);
    } catch {
      // gone in between
    }
  }
  return found;
};

/** The pids the helper forked when it got SIGTERM (during the kill's grace). */
const forks = (root: string): number[] => {
  const f = join(root, 'forks.txt');
  return existsSync(f) ? [...readFileSync(f, 'utf8').matchAll(/forked (\d+)/g)].map((m) => Number(m[1])) : [];
};

const sessionOf = (pid: number): number => Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[3]);

afterEach(async () => {
  for (const s of opened.splice(0)) await s.close({ cancel: true }).catch(() => undefined);
  for (const c of spawned.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  // Whatever a failing test left behind must not outlive it.
  for (const t of tokens.splice(0))
    for (const pid of bearers(t)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
});

const until = async <T>(what: () => T | null | undefined | false, label: string, ms = 30_000): Promise<T> => {
  const end = Date.now() + ms;
  for (;;) {
    const v = what();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${label}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

interface Orphaned {
  root: string;
  launch: LaunchEvent;
  token: string;
  /** The helper that left the session (not the agent). */
  helper: number;
}

/** The built checkroom launches ch01 research (fault `escape`) and is kill -9'd mid-run. */
async function orphan(): Promise<Orphaned> {
  expect(existsSync(CLI), 'run `npm run build` first').toBe(true);
  const root = fakeAgentWorkspace('checkroom-orphans-', { faults: { 'ch01/research': 'escape' } });
  // Agents inherit checkroom's environment: the helper notes its forks here.
  const env = { ...process.env, CHECKROOM_FAKE_NOTES: join(root, 'forks.txt') };
  const room = spawn(process.execPath, [CLI, 'run', root, 'ch01', 'research'], { stdio: ['ignore', 'pipe', 'pipe'], env });
  spawned.push(room);
  let out = '';
  room.stdout!.on('data', (d) => (out += d));
  room.stderr!.on('data', (d) => (out += d));
  await until(() => out.includes('waiting for the model') || room.exitCode !== null, 'the agent to hang');
  expect(out, out).toContain('waiting for the model');
  const launch = (await readJournal(root)).events.find((e): e is LaunchEvent => e.type === 'launch')!;
  const token = readRunToken(launch.logPath)!;
  expect(token).toBeTruthy();
  tokens.push(token);
  const helper = await until(() => bearers(token).find((p) => p !== launch.pid), 'the helper');
  // It left the agent's session (and so its group): only the token finds it.
  expect(sessionOf(helper)).not.toBe(sessionOf(launch.pid!));
  room.kill('SIGKILL');
  await until(() => room.exitCode !== null || room.signalCode !== null, 'checkroom to die');
  // kill -9: nothing ran in checkroom; the agent and its helper are orphans.
  expect(isSameProcessAlive(launch.pid!, launch.procStart)).toBe(true);
  expect(bearers(token).sort()).toEqual([launch.pid!, helper].sort());
  return { root, launch, token, helper };
}

async function restart(root: string): Promise<{ s: Supervisor; events: SupervisorEvent[] }> {
  const events: SupervisorEvent[] = [];
  const s = await openSupervisor({ root, config: await loadConfig(root), onEvent: (e) => events.push(e) });
  opened.push(s);
  await s.ready;
  expect(s.snapshot().role).toBe('driver');
  return { s, events };
}

describe('torture: kill -9 leaves nothing behind (issue 16 item 4)', () => {
  it('the restart adopts the live run; a cancel of the adopted run stops every token bearer, the setsid helper and its forks too', { timeout: 90_000 }, async () => {
    const { root, launch, token } = await orphan();
    expect(launch.token, 'the launch event records the run token').toBe(token);
    const { s, events } = await restart(root);
    expect(s.snapshot().runs).toMatchObject([{ runId: launch.runId, origin: 'adopted' }]);
    // The same path as `x` in the control room (store-agents → supervisor.cancel).
    expect(s.cancel('ch01/research')).toBe(true);
    await until(() => events.some((e) => e.type === 'cancelled'), 'the cancel');
    expect(bearers(token)).toEqual([]);
    // The helper forked during the grace; the re-scan by token found and stopped the fork too.
    expect(forks(root).length).toBeGreaterThan(0);
    for (const pid of forks(root)) expect(isSameProcessAlive(pid, null)).toBe(false);
    expect((await readJournal(root)).events.find((e) => e.type === 'exit' && e.runId === launch.runId)).toMatchObject({ class: 'CANCELLED' });
  });

  it('an adopted run whose agent ends on its own takes its setsid helper with it', { timeout: 90_000 }, async () => {
    const { root, launch, token, helper } = await orphan();
    const { events } = await restart(root);
    process.kill(launch.pid!, 'SIGKILL');
    await until(() => events.some((e) => e.type === 'failed'), 'the adopted run to end');
    expect(isSameProcessAlive(helper, null)).toBe(false);
    expect(bearers(token)).toEqual([]);
  });

  it('the restart ends a run whose agent died unwatched: every token bearer is stopped and the journal says how', { timeout: 90_000 }, async () => {
    const { root, launch, token, helper } = await orphan();
    // The agent ends while no checkroom watches; its setsid helper lives on.
    process.kill(launch.pid!, 'SIGKILL');
    await until(() => !isSameProcessAlive(launch.pid!, launch.procStart), 'the agent to die');
    expect(bearers(token)).toEqual([helper]);
    const { s, events } = await restart(root);
    expect(s.snapshot().runs).toEqual([]);
    expect(bearers(token)).toEqual([]);
    expect(forks(root).length).toBeGreaterThan(0);
    const reaped = (await readJournal(root)).events.find((e) => e.type === 'reaped' && e.runId === launch.runId);
    expect(reaped).toMatchObject({ outcome: 'reaped', leader: 'gone' });
    expect((reaped as { stopped?: number[] }).stopped).toContain(helper);
    expect(events.find((e) => e.type === 'reaped')?.message).toMatch(/ch01 research: run .* had ended, but \d+ process(es)? of its run .* were still running: they were stopped/);
    expect(s.snapshot().ledger.liveRuns).toEqual([]);
  });

  it('a pid the journal names that is now another process is never signalled; the run token still stops the run\'s own', { timeout: 60_000 }, async () => {
    const root = fakeAgentWorkspace('checkroom-recycled-');
    mkdirSync(join(root, '.checkroom', 'runs'), { recursive: true });
    // "Another process" at the recorded pid: a group leader with a child in its group, noting
    // every signal it gets. The journal records the pid with another start time.
    const notes = join(root, 'signals.txt');
    const foreignSrc = `const fs = require('node:fs');
      for (const s of ['SIGTERM', 'SIGUSR1', 'SIGHUP', 'SIGINT']) process.on(s, () => fs.appendFileSync(${JSON.stringify(notes)}, s + '\\n'));
      const c = require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], { stdio: 'ignore' });
      c.on('spawn', () => fs.appendFileSync(${JSON.stringify(notes)}, 'child ' + c.pid + '\\n'));
      setInterval(() => {}, 1 << 30);`;
    const foreign = spawn(process.execPath, ['-e', foreignSrc], { detached: true, stdio: 'ignore' });
    spawned.push(foreign);
    const child = Number((await until(() => existsSync(notes) && /child (\d+)/.exec(readFileSync(notes, 'utf8')), 'the foreign child'))[1]);
    const starts = { leader: procStartTime(foreign.pid!)!, child: procStartTime(child)! };
    // The run's own helper, escaped from its (long gone) group, carrying its token.
    const token = 'ch01-research-a1-recycled.0123456789ab';
    tokens.push(token);
    const escapee = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], { detached: true, stdio: 'ignore', env: { ...process.env, [RUN_TOKEN_VAR]: token } });
    spawned.push(escapee);
    await until(() => bearers(token).length === 1, 'the escapee');
    await appendJournal(root, {
      type: 'launch',
      at: Date.now() - 60_000,
      runId: 'ch01-research-a1-recycled',
      unit: 'ch01',
      step: 'research',
      agent: 'researcher',
      attempt: 1,
      argv: ['node', 'agent.mjs'],
      cwd: root,
      logPath: join(root, '.checkroom', 'runs', 'ch01-research-a1-recycled.log'),
      pid: foreign.pid!,
      // Older than the foreign process: the agent that had this pid started first.
      procStart: starts.leader - 1,
      outputPath: null,
      token,
    });
    const { s, events } = await restart(root);
    expect(s.snapshot().runs).toEqual([]);
    expect(bearers(token)).toEqual([]);
    const reaped = (await readJournal(root)).events.find((e) => e.type === 'reaped');
    expect(reaped).toMatchObject({ outcome: 'reaped', leader: 'foreign', stopped: [escapee.pid] });
    expect(events.find((e) => e.type === 'reaped')?.message).toMatch(/its pid now belongs to another process \(start time differs\): that process was left alone/);
    // The foreign leader and its group: alive, and not one signal. (A signal sent now is noted
    // after any sent before it: its note is the point from which the absence is read.)
    expect(isSameProcessAlive(foreign.pid!, starts.leader)).toBe(true);
    expect(isSameProcessAlive(child, starts.child)).toBe(true);
    process.kill(foreign.pid!, 'SIGUSR1');
    await until(() => readFileSync(notes, 'utf8').includes('SIGUSR1'), 'the probe signal');
    expect(readFileSync(notes, 'utf8').split('\n').filter((l) => l.startsWith('SIG'))).toEqual(['SIGUSR1']);
    process.kill(child, 'SIGKILL');
  });
});
