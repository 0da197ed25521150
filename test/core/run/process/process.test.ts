import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startProcess } from '../../../../src/run/process/process.js';
import { procStartTime, isSameProcessAlive } from '../../../../src/run/process/proc.js';
import type { ProcessSpec } from '../../../../src/run/types.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'checkroom-process-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const spec = (argv: string[], over: Partial<ProcessSpec> = {}): ProcessSpec => ({
  runId: 'run-1',
  argv,
  cwd: dir,
  env: {},
  logPath: join(dir, '.checkroom', 'runs', 'run-1.log'),
  outputPath: null,
  idleTimeoutMs: 10_000,
  timeoutMs: 20_000,
  graceMs: 300,
  ...over,
});

describe('startProcess', () => {
  it('streams stdout and stderr into the log and the ring, with header and footer', async () => {
    const h = startProcess(spec(['sh', '-c', 'echo out-line; echo err-line >&2; exit 3']));
    const r = await h.result;
    expect(r.exitCode).toBe(3);
    expect(r.signal).toBeNull();
    expect(r.spawnError).toBeNull();
    expect([r.stalled, r.timedOut, r.cancelled]).toEqual([false, false, false]);
    expect(r.tail).toEqual(expect.arrayContaining(['out-line', 'err-line']));
    expect(r.bytesOut).toBe('out-line\nerr-line\n'.length);
    const log = readFileSync(join(dir, '.checkroom', 'runs', 'run-1.log'), 'utf8').split('\n');
    expect(log[0]).toContain('[checkroom] start');
    expect(log[0]).toContain(JSON.stringify(['sh', '-c', 'echo out-line; echo err-line >&2; exit 3']));
    expect(log[0]).toMatch(/\d{4}-\d\d-\d\dT/);
    expect(log.slice(1, 3).sort()).toEqual(['err-line', 'out-line']);
    expect(log[3]).toMatch(/\[checkroom\] end .* exit=3 signal=- reason=exit/);
  });

  it('appends to an existing log instead of overwriting it', async () => {
    const logPath = join(dir, 'runs', 'a.log');
    await startProcess(spec(['sh', '-c', 'echo first'], { logPath })).result;
    await startProcess(spec(['sh', '-c', 'echo second'], { logPath })).result;
    const log = readFileSync(logPath, 'utf8');
    expect(log.match(/\[checkroom\] start/g)).toHaveLength(2);
    expect(log.indexOf('first')).toBeLessThan(log.indexOf('second'));
  });

  it('passes argv literally, without a shell, and merges env', async () => {
    const h = startProcess(
      spec([process.execPath, '-e', 'console.log(JSON.stringify([process.argv.slice(1), process.env.CR_TEST]))', '$(echo hacked)', 'a b;c'], { env: { CR_TEST: 'yes' } }),
    );
    const r = await h.result;
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.tail[0]!)).toEqual([['$(echo hacked)', 'a b;c'], 'yes']);
  });

  it('records the pid and its /proc start time while running', async () => {
    const h = startProcess(spec(['sh', '-c', 'echo ready; sleep 5']));
    expect(h.pid).toBeGreaterThan(0);
    expect(h.procStart).toBe(procStartTime(h.pid!));
    expect(isSameProcessAlive(h.pid!, h.procStart)).toBe(true);
    expect(isSameProcessAlive(h.pid!, h.procStart! + 1)).toBe(false);
    h.cancel();
    const r = await h.result;
    expect(r.cancelled).toBe(true);
    expect(isSameProcessAlive(h.pid!, h.procStart)).toBe(false);
  });

  it('notifies line subscribers, sanitized, and stops after unsubscribe', async () => {
    const h = startProcess(spec(['sh', '-c', 'sleep 0.2; printf "\\033]0;evil\\007one\\n"; sleep 0.3; echo two']));
    const seen: string[] = [];
    const off = h.onLine((l) => {
      seen.push(l);
      if (l.includes('one')) off();
    });
    const r = await h.result;
    expect(seen).toEqual(['\\e]0;evil\\aone']);
    expect(r.tail).toEqual(['\\e]0;evil\\aone', 'two']);
    expect(h.lines()).toEqual(r.tail);
  });

  it('keeps a final line without newline', async () => {
    const r = await startProcess(spec(['sh', '-c', 'printf "no newline"'])).result;
    expect(r.tail).toEqual(['no newline']);
  });

  it('reports a missing executable as spawnError ENOENT without throwing', async () => {
    const h = startProcess(spec([join(dir, 'does-not-exist')]));
    expect(h.pid).toBeNull();
    const r = await h.result;
    expect(r.spawnError).toBe('ENOENT');
    expect(r.exitCode).toBeNull();
    expect(r.tail.join('\n')).toContain('executable not found');
    expect(readFileSync(join(dir, '.checkroom', 'runs', 'run-1.log'), 'utf8')).toContain('reason=spawn-error:ENOENT');
    h.cancel(); // harmless after the fact
  });

  it('reports a non-executable file as spawnError EACCES', async () => {
    const script = join(dir, 'agent.sh');
    writeFileSync(script, '#!/bin/sh\necho hi\n');
    chmodSync(script, 0o644);
    const r = await startProcess(spec([script])).result;
    expect(r.spawnError).toBe('EACCES');
    expect(r.tail.join('\n')).toContain('permission denied');
  });

  it('reports an empty command as a spawn error', async () => {
    const r = await startProcess(spec([])).result;
    expect(r.spawnError).toBe('EINVAL');
  });

  it('still runs when the log cannot be written, and says so', async () => {
    writeFileSync(join(dir, 'blocker'), '');
    const r = await startProcess(spec(['sh', '-c', 'echo alive'], { logPath: join(dir, 'blocker', 'x.log') })).result;
    expect(r.exitCode).toBe(0);
    expect(r.tail.some((l) => l.startsWith('[checkroom] cannot write log'))).toBe(true);
    expect(r.tail).toContain('alive');
  });

  it('keeps running when the log fails asynchronously (the log path is a directory)', async () => {
    const logPath = join(dir, 'is-a-dir');
    mkdirSync(logPath);
    const r = await startProcess(spec([process.execPath, '-e', "process.stdout.write('y\\n'.repeat(200000))"], { logPath })).result;
    expect(r.exitCode).toBe(0);
    expect(r.bytesOut).toBe(400000);
    expect(r.tail.at(-1)).toMatch(/\[checkroom\] the log .* is incomplete: .*EISDIR/);
  });
});
