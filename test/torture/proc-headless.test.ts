import { afterAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readJournal, type SessionEvent } from '../../src/run/journal/journal.js';
import { isSameProcessAlive, procStartTime } from '../../src/run/process/proc.js';
import { copyDemo, REPO } from '../helpers/workspace.js';

// Issue 8 item 4 (proc), headless: `checkroom run` killed by SIGINT, SIGTERM or SIGHUP (an SSH
// drop ends a headless run too) cancels its agent — TERM-ignoring, with a setsid'd child on
// stdout — journals the stop with the signal, releases the lock. Real bin, real processes.
// Issue 17 item 3: a hang-up now follows on_hangup (default leave: test/torture/keeper-kill9.test.ts);
// the SIGHUP case here runs with `on_hangup: stop`, which keeps the old behaviour.

const CLI = join(REPO, JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).bin.checkroom);

const STUBBORN = `
import { spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
const file = join(process.argv[process.argv.indexOf('--workspace') + 1], 'agent-pids.txt');
process.on('SIGTERM', () => {});
appendFileSync(file, process.pid + '\\n');
const io = { stdio: ['ignore', 'inherit', 'inherit'] };
spawn('setsid', ['sh', '-c', 'echo $$ >> "$0"; exec sleep 1000', file], io);
setInterval(() => console.log('working'), 200);
`;

type Proc = { pid: number; start: number | null };
const pidsOf = (dir: string): Proc[] => {
  const f = join(dir, 'agent-pids.txt');
  return existsSync(f) ? readFileSync(f, 'utf8').split(/\s+/).filter(Boolean).map((p) => ({ pid: Number(p), start: procStartTime(Number(p)) })) : [];
};
const alive = (ps: Proc[]): Proc[] => ps.filter((p) => p.start !== null && isSameProcessAlive(p.pid, p.start));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('torture: headless run killed (proc)', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const p of alive(dirs.flatMap(pidsOf))) process.kill(p.pid, 'SIGKILL');
  });

  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    it(`${signal}${signal === 'SIGHUP' ? ' (on_hangup: stop)' : ''}: the agent and its escapee are stopped, the stop journaled, the lock released`, { timeout: 60_000 }, async () => {
      const dir = copyDemo();
      dirs.push(dir);
      writeFileSync(join(dir, 'agents', 'stubborn.mjs'), STUBBORN);
      const yaml = join(dir, 'checkroom.yaml');
      writeFileSync(yaml, readFileSync(yaml, 'utf8').replaceAll('agents/fake-agent.mjs', 'agents/stubborn.mjs') + (signal === 'SIGHUP' ? 'on_hangup: stop\n' : ''));
      const child = spawn(process.execPath, [CLI, 'run', dir, '--next'], { stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout.resume();
      child.stderr.resume();
      const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
      for (let i = 0; i < 400 && alive(pidsOf(dir)).length < 2; i++) await sleep(50);
      const procs = pidsOf(dir);
      expect(alive(procs)).toHaveLength(2);
      child.kill(signal);
      await exited;
      expect(alive(procs)).toEqual([]);
      expect(existsSync(join(dir, '.checkroom', 'driver.lock'))).toBe(false);
      const stop = (await readJournal(dir)).events.filter((e): e is SessionEvent => e.type === 'session' && e.kind === 'stop').at(-1);
      expect(stop?.reason).toBe(signal);
    });
  }
});
