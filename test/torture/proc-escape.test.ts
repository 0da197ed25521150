import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { startProcess } from '../../src/run/process/process.js';
import { drainStreams } from '../../src/run/process/drain.js';
import { isSameProcessAlive, procStartTime } from '../../src/run/process/proc.js';
import { readRunToken, RUN_TOKEN_VAR } from '../../src/run/process/members.js';
import { endRecorded } from '../../src/run/journal/recorded-run.js';
import { spawn } from 'node:child_process';
import type { ProcessSpec } from '../../src/run/types.js';
import { tempDir } from '../helpers/workspace.js';

// Issue 8 item 4 (proc): a run ends when its agent exits, and no process of it survives —
// also descendants that left the group with setsid(1) and keep stdout open, or ignore SIGTERM,
// or daemonized (double fork, stdout closed). Real processes; pids checked through /proc.

let dir: string;
beforeEach(() => {
  dir = tempDir('checkroom-torture-proc-');
});
afterEach(() => {
  // Whatever a failing test left behind must not outlive it.
  for (const f of ['pids']) {
    const p = join(dir, f);
    if (!existsSync(p)) continue;
    for (const pid of readFileSync(p, 'utf8').split(/\s+/).filter(Boolean).map(Number)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

const spec = (script: string, over: Partial<ProcessSpec> = {}): ProcessSpec => {
  const file = join(dir, 'agent.sh');
  writeFileSync(file, script);
  return { runId: 'run-t', argv: ['sh', file], cwd: dir, env: {}, logPath: join(dir, 'run.log'), outputPath: null, idleTimeoutMs: 0, timeoutMs: 0, graceMs: 300, ...over };
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The pids the agent wrote to `pids`, once `n` of them are there (bounded). */
const pidsWritten = async (n: number): Promise<{ pid: number; start: number }[]> => {
  const p = join(dir, 'pids');
  for (let i = 0; i < 600; i++) {
    const pids = existsSync(p) ? readFileSync(p, 'utf8').split(/\s+/).filter(Boolean).map(Number) : [];
    if (pids.length >= n) return pids.map((pid) => ({ pid, start: procStartTime(pid) ?? -1 }));
    await sleep(50);
  }
  throw new Error(`the agent never wrote ${n} pids`);
};

const gone = (ps: { pid: number; start: number }[]): boolean => ps.every((p) => !isSameProcessAlive(p.pid, p.start));

// A setsid'd escapee that keeps stdout (the run's pipe) open and sleeps "forever".
const ESCAPEE = `setsid sh -c 'echo $$ >> pids; exec sleep 1000' &`;
// One that also ignores SIGTERM.
const STUBBORN_ESCAPEE = `setsid sh -c 'trap "" TERM; echo $$ >> pids; while :; do sleep 1; done' &`;
// A daemon: double fork, its own session, stdout and stderr closed — nothing holds our pipe.
const DAEMON = `sh -c 'setsid sh -c "exec >/dev/null 2>&1 </dev/null; echo \\$\\$ >> pids; exec sleep 1000" &' `;

describe('torture: escaped descendants (proc)', () => {
  it('the run ends when the agent exits although a setsid child holds stdout open; the child is stopped', { timeout: 60_000 }, async () => {
    const h = startProcess(spec(`${ESCAPEE}\nwhile [ ! -s pids ]; do sleep 0.05; done\necho agent done\nexit 3\n`));
    const [escapee] = await pidsWritten(1);
    expect(escapee!.start).toBeGreaterThan(0);
    const r = await h.result;
    expect(r.exitCode).toBe(3);
    expect(r.tail).toContain('agent done');
    expect(gone([escapee!])).toBe(true);
    expect(readFileSync(join(dir, 'run.log'), 'utf8')).toMatch(/\[checkroom\] end .* exit=3 .*reason=exit/);
  });

  it('the idle watchdog ends a silent run whose group ignores SIGTERM and whose setsid children hold the pipe', { timeout: 60_000 }, async () => {
    const script = [
      `trap '' TERM`,
      STUBBORN_ESCAPEE,
      ESCAPEE,
      `sh -c 'trap "" TERM; echo $$ >> pids; while :; do sleep 1; done' &`,
      DAEMON,
      `echo $$ >> pids`,
      `echo started`,
      `while :; do sleep 1; done`,
    ].join('\n');
    const h = startProcess(spec(script, { idleTimeoutMs: 1500 }));
    const procs = await pidsWritten(5);
    expect(procs.every((p) => p.start > 0)).toBe(true);
    const r = await h.result;
    expect(r.stalled).toBe(true);
    // Bounded: the kill's SIGKILL phase and the drain, not the escapees' `sleep 1000`.
    expect(gone(procs)).toBe(true);
    expect(readFileSync(join(dir, 'run.log'), 'utf8')).toMatch(/reason=stalled/);
  });

  it('a setsid child with a rebuilt environment (no token) is found as the holder of the pipe', { timeout: 60_000 }, async () => {
    const h = startProcess(spec(`env -i setsid sh -c 'echo $$ >> pids; exec sleep 1000' &\nwhile [ ! -s pids ]; do sleep 0.05; done\nexit 0\n`));
    const procs = await pidsWritten(1);
    const r = await h.result;
    expect(r.exitCode).toBe(0);
    expect(gone(procs)).toBe(true);
  });

  it('a pipe nobody closes is cut off after the bounded drain, its data read up to then', async () => {
    const open = new PassThrough();
    const closed = new PassThrough();
    let got = '';
    open.on('data', (b: Buffer) => (got += b.toString()));
    closed.resume();
    open.write('still here\n');
    closed.end('bye\n');
    expect(await drainStreams([open, closed], 200)).toBe(true);
    expect(open.destroyed).toBe(true);
    expect(got).toBe('still here\n');
    const fine = new PassThrough();
    fine.resume();
    fine.end();
    expect(await drainStreams([fine], 10_000)).toBe(false);
  });

  it('an output flood stays bounded: the ring keeps N lines, the log stops at its cap plus a tail', { timeout: 120_000 }, async () => {
    const cap = 1024 * 1024;
    // ~120 MB of short lines, as fast as the pipe takes them.
    const h = startProcess(spec(`head -c 120000000 /dev/zero | tr '\\0' 'x' | fold -w 200\necho\necho last line\n`, { logMaxBytes: cap, ringLines: 100 }));
    let seen = 0;
    h.onLine(() => seen++);
    const heap0 = process.memoryUsage().heapUsed;
    let peak = 0;
    const probe = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed - heap0)), 20);
    const r = await h.result;
    clearInterval(probe);
    expect(r.exitCode).toBe(0);
    expect(r.bytesOut).toBeGreaterThan(120_000_000);
    expect(r.tail.length).toBeLessThanOrEqual(100);
    expect(r.tail.at(-1)).toBe('last line');
    const size = statSync(join(dir, 'run.log')).size;
    expect(size).toBeLessThan(cap + 100 * 210 + 4096);
    expect(readFileSync(join(dir, 'run.log'), 'utf8')).toContain('log capped at');
    // Memory: the flood is not held (120 MB streamed; the heap grew by far less).
    expect(peak).toBeLessThan(60 * 1024 * 1024);
    expect(seen).toBeGreaterThan(0);
  });
});

describe('torture: a restarted checkroom finds escapees by the token in the log (proc)', () => {
  it('endRecorded with the logged token stops the setsid child of a run whose checkroom died', { timeout: 60_000 }, async () => {
    // The run as a checkroom killed outright leaves it: nobody watches it, the agent and its
    // setsid'd child still run, and the log's first line has the token.
    const token = 'run-t.0123456789ab';
    const file = join(dir, 'agent.sh');
    writeFileSync(file, `${ESCAPEE}\necho $$ >> pids\nwhile :; do sleep 1; done\n`);
    const agent = spawn('sh', [file], { cwd: dir, detached: true, stdio: 'ignore', env: { ...process.env, [RUN_TOKEN_VAR]: token } });
    agent.unref();
    const procs = await pidsWritten(2);
    const start = procStartTime(agent.pid!);
    writeFileSync(join(dir, 'run.log'), `[checkroom] start 2026-01-01T00:00:00.000Z run=run-t pid=${agent.pid} procStart=${start} token=${token} cwd="/" argv=["sh"]\nworking\n`);
    expect(readRunToken(join(dir, 'run.log'))).toBe(token);
    // No token in the record (an older journal): the log's first line gives it.
    expect(await endRecorded({ pid: agent.pid!, procStart: start, logPath: join(dir, 'run.log') }, 300)).toMatchObject({ outcome: 'reaped', leader: 'ours' });
    expect(gone(procs)).toBe(true);
  });
});
