import { afterAll, describe, expect, it } from 'vitest';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, openSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import { diedBeforeExec, isSameProcessAlive } from '../../../../src/run/process/proc.js';
import { REPO, tempDir } from '../../../helpers/workspace.js';

// A terminal that hangs up (tmux kill-session, an SSH drop) signals the room's whole process
// group. A child forked that instant is still in the group until its setsid: it died of the
// SIGHUP before its exec, and the room left running an agent that had never started (CI:
// proc-parent-death "a closed terminal", the left agent dead), or a keeper that never held
// the agent's pipes (the agent then dies of EPIPE). strace holds each child at its setsid so
// the hang-up lands exactly there: deterministic. The room is a bundle of startProcess in its
// own group, with a SIGHUP listener as the control room has.

// strace installed and allowed to trace here (a container without CAP_SYS_PTRACE is not).
const hasStrace = (() => {
  try {
    execFileSync('strace', ['-f', '-qq', '-o', '/dev/null', 'true'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

const ROOM = `
import { writeFileSync } from 'node:fs';
import { startProcess } from ${JSON.stringify(join(REPO, 'src/run/process/process.ts'))};
const [dir] = process.argv.slice(2);
process.on('SIGHUP', () => {});
const agent = 'process.on("SIGTERM", () => {}); let n = 0; setInterval(() => console.log("working " + ++n), 100);';
const h = startProcess({ runId: 'r1', argv: [process.execPath, '-e', agent], cwd: dir, env: { ...process.env }, logPath: dir + '/r1.log', outputPath: null, idleTimeoutMs: 0, timeoutMs: 0, graceMs: 100 });
writeFileSync(dir + '/handle.json', JSON.stringify({ pid: h.pid, procStart: h.procStart, keeper: h.keeper }));
setInterval(() => {}, 1000);
`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
// strace on the real clock: under CI's faketime pass (LD_PRELOAD libfaketime) strace's own
// delay_enter never ended, and the child stayed held at its setsid. The date is not what this tests.
const realClock = (): NodeJS.ProcessEnv => {
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (k === 'LD_PRELOAD' || k.startsWith('FAKETIME')) delete env[k];
  return env;
};
const until = async <T>(get: () => T | null | undefined | false, what: string): Promise<T> => {
  for (let i = 0; i < 600; i++) {
    const v = get();
    if (v) return v;
    await sleep(50);
  }
  throw new Error(`timed out waiting for ${what}`);
};
const childrenOf = (ppid: number): number[] =>
  readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .map(Number)
    .filter((pid) => {
      try {
        const st = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return Number(st.slice(st.lastIndexOf(')') + 2).split(' ')[1]) === ppid;
      } catch {
        return false;
      }
    });

describe.skipIf(!hasStrace)('a hang-up while a run is being spawned (strace holds the child before its exec)', () => {
  const groups: number[] = [];
  afterAll(() => {
    for (const g of groups)
      try {
        process.kill(-g, 'SIGKILL');
      } catch {
        // gone
      }
  });

  // `agent`: the hang-up reaches the agent's child; `keeper`: the keeper's, the agent started.
  for (const hit of ['agent', 'keeper'] as const) {
    it(`the ${hit} forked as the terminal hangs up is started again: the run is alive and its output reaches the log`, { timeout: 60_000 }, async () => {
      const dir = tempDir('checkroom-hangup-');
      const bundle = join(dir, 'room.mjs');
      writeFileSync(join(dir, 'room-src.mjs'), ROOM);
      buildSync({ entryPoints: [join(dir, 'room-src.mjs')], bundle: true, platform: 'node', format: 'esm', outfile: bundle, logLevel: 'silent', banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" } });
      // strace is the group's leader; every setsid (each detached spawn's) waits 1.5 s in the
      // child before its exec: long enough for this test's 50 ms poll to see it there.
      const err = openSync(join(dir, 'room.err'), 'w');
      const trace = spawn('strace', ['-f', '-qq', '-o', join(dir, 'strace.out'), '-e', 'trace=setsid', '-e', 'inject=setsid:delay_enter=1500000', process.execPath, bundle, dir], { detached: true, stdio: ['ignore', 'ignore', err], env: realClock() });
      groups.push(trace.pid!);
      // By its command line: strace forks children of its own (with strace's) to probe ptrace at start.
      const argv = (pid: number): string[] => {
        try {
          return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        } catch {
          return [];
        }
      };
      const room = await until(() => childrenOf(trace.pid!).find((p) => argv(p)[0] === process.execPath && argv(p)[1] === bundle), 'the room under strace');
      const forked = (): number[] => childrenOf(room).filter((p) => diedBeforeExec(p));
      if (hit === 'keeper') await until(() => childrenOf(room).some((p) => !diedBeforeExec(p)), 'the agent exec’d');
      await until(() => forked().length > 0, `the ${hit} held before its exec`).catch((e: Error) => {
        throw new Error(`${e.message}; room: ${readFileSync(join(dir, 'room.err'), 'utf8')}; strace: ${readFileSync(join(dir, 'strace.out'), 'utf8')}`);
      });
      process.kill(-trace.pid!, 'SIGHUP');
      const h = await until(() => existsSync(join(dir, 'handle.json')) && JSON.parse(readFileSync(join(dir, 'handle.json'), 'utf8')), 'the handle');
      groups.push(h.pid, h.keeper.pid);
      await sleep(500);
      expect(isSameProcessAlive(h.pid, h.procStart)).toBe(true);
      expect(isSameProcessAlive(h.keeper.pid, h.keeper.procStart)).toBe(true);
      // Its keeper holds the pipes: the agent's lines reach the log.
      await until(() => /working \d+/.test(readFileSync(join(dir, 'r1.log'), 'utf8')), 'output in the log');
      // The room goes (the terminal's is gone): the run goes on, its output still reaching the log.
      process.kill(-trace.pid!, 'SIGKILL');
      const n = (): number => Number(readFileSync(join(dir, 'r1.log'), 'utf8').match(/working (\d+)/g)?.at(-1)?.split(' ')[1] ?? 0);
      const before = n();
      await until(() => n() > before + 3, 'output after the room is gone');
      expect(isSameProcessAlive(h.pid, h.procStart)).toBe(true);
    });
  }
});
