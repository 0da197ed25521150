import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startProcess } from '../../../../src/run/process/process.js';
import { isSameProcessAlive } from '../../../../src/run/process/proc.js';
import type { ProcessSpec, RunHandle } from '../../../../src/run/types.js';

// Watchdog, timeout, cancel and the whole-group kill, on real processes.

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'checkroom-kill-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const spec = (argv: string[], over: Partial<ProcessSpec> = {}): ProcessSpec => ({
  runId: 'run-k',
  argv,
  cwd: dir,
  env: {},
  logPath: join(dir, 'run.log'),
  outputPath: null,
  idleTimeoutMs: 0,
  timeoutMs: 0,
  graceMs: 200,
  ...over,
});

const node = (code: string): string[] => {
  const file = join(dir, `script-${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(file, code);
  return [process.execPath, file];
};

/** Wait until `n` lines matching `re` were seen; returns their first capture groups. */
const collect = (h: RunHandle, re: RegExp, n: number): Promise<string[]> =>
  new Promise((resolve) => {
    const got: string[] = [];
    const off = h.onLine((l) => {
      const m = re.exec(l);
      if (m) got.push(m[1]!);
      if (got.length === n) {
        off();
        resolve(got);
      }
    });
    // Never hang the test: if the run ends first, hand back what was seen.
    void h.result.then(() => resolve(got));
  });

const alive = (pid: number): boolean => isSameProcessAlive(pid, null);

// A leader and two grandchildren in its group, all ignoring SIGTERM.
// The leader prints a heartbeat until both grandchildren have reported, then falls silent.
const STUBBORN_TREE = `
import { spawn } from 'node:child_process';
process.on('SIGTERM', () => {});
const beat = setInterval(() => console.log('starting'), 50);
const kid = "process.on('SIGTERM', () => {}); console.log('ready'); setInterval(() => {}, 1000);";
let ready = 0;
const kids = [0, 1].map(() => spawn(process.execPath, ['-e', kid], { stdio: ['ignore', 'pipe', 'inherit'] }));
for (const k of kids) k.stdout.once('data', () => {
  if (++ready < 2) return;
  clearInterval(beat);
  console.log('leader ' + process.pid);
  for (const c of kids) console.log('grandchild ' + c.pid);
  console.log('then silence');
});
setInterval(() => {}, 1000);
`;

describe('killing the whole group', () => {
  it('cancel kills a leader and grandchildren that ignore SIGTERM', async () => {
    const h = startProcess(spec(node(STUBBORN_TREE)));
    const pids = (await collect(h, /^(?:leader|grandchild) (\d+)$/, 3)).map(Number);
    expect(pids).toContain(h.pid);
    for (const pid of pids) expect(alive(pid)).toBe(true);
    h.cancel();
    const r = await h.result;
    expect(r.cancelled).toBe(true);
    expect(r.signal).toBe('SIGKILL');
    for (const pid of pids) expect(alive(pid)).toBe(false);
    expect(readFileSync(join(dir, 'run.log'), 'utf8')).toMatch(/\[checkroom\] end .*signal=SIGKILL reason=cancelled/);
  });

  it('kills sh grandchildren that trap TERM', async () => {
    const script = `trap '' TERM; sh -c 'trap "" TERM; echo gc $$; while :; do sleep 0.05; done' & sh -c 'trap "" TERM; echo gc $$; while :; do sleep 0.05; done' & echo gc $$; wait`;
    const h = startProcess(spec(['sh', '-c', script]));
    const pids = (await collect(h, /^gc (\d+)$/, 3)).map(Number);
    h.cancel();
    await h.result;
    for (const pid of pids) expect(alive(pid)).toBe(false);
  });

  it('reaps helpers left behind when the leader exits on its own', async () => {
    const h = startProcess(spec(['sh', '-c', `sh -c 'trap "" TERM; echo helper $$; exec sleep 1000' & sleep 0.2; echo leader-done`]));
    const [helper] = (await collect(h, /^helper (\d+)$/, 1)).map(Number);
    const r = await h.result;
    expect(r.exitCode).toBe(0);
    expect(r.cancelled || r.stalled || r.timedOut).toBe(false);
    expect(r.tail).toContain('leader-done');
    expect(alive(helper!)).toBe(false);
  });
});

describe('idle watchdog and timeout', () => {
  it('kills a silent process as stalled', async () => {
    // Idle limits leave room for node's own start-up on a loaded machine.
    const h = startProcess(spec(node(STUBBORN_TREE), { idleTimeoutMs: 800 }));
    const pids = (await collect(h, /^(?:leader|grandchild) (\d+)$/, 3)).map(Number);
    const r = await h.result;
    expect(r.stalled).toBe(true);
    expect(r.timedOut || r.cancelled).toBe(false);
    expect(r.tail).toContain('then silence');
    for (const pid of pids) expect(alive(pid)).toBe(false);
    expect(readFileSync(join(dir, 'run.log'), 'utf8')).toContain('reason=stalled');
  });

  it('counts growth of the output file as liveness', async () => {
    const out = join(dir, 'out.md');
    // No stdout at all for ~2.4 s (3× the idle limit), but the output file grows every 60 ms.
    const argv = node(`
      import { appendFileSync } from 'node:fs';
      let n = 0;
      const t = setInterval(() => { appendFileSync(${JSON.stringify(out)}, 'line ' + n + '\\n'); if (++n === 40) clearInterval(t); }, 60);
    `);
    const r = await startProcess(spec(argv, { idleTimeoutMs: 800, outputPath: out })).result;
    expect(r.stalled).toBe(false);
    expect(r.exitCode).toBe(0);
    expect(readFileSync(out, 'utf8').split('\n')).toHaveLength(41);
  });

  it('without output-file growth the same child is stalled', async () => {
    const out = join(dir, 'out.md');
    const elsewhere = join(dir, 'elsewhere.md');
    const argv = node(`
      import { appendFileSync } from 'node:fs';
      setInterval(() => appendFileSync(${JSON.stringify(elsewhere)}, 'x\\n'), 60);
    `);
    const r = await startProcess(spec(argv, { idleTimeoutMs: 800, outputPath: out })).result;
    expect(r.stalled).toBe(true);
    expect(statSync(elsewhere).size).toBeGreaterThan(0);
  });

  it('kills a chatty process at the overall timeout', async () => {
    const h = startProcess(spec(['sh', '-c', 'trap "" TERM; while :; do echo tick; sleep 0.02; done'], { idleTimeoutMs: 300, timeoutMs: 600 }));
    const r = await h.result;
    expect(r.timedOut).toBe(true);
    expect(r.stalled).toBe(false);
    expect(r.tail.filter((l) => l === 'tick').length).toBeGreaterThan(5);
    expect(alive(h.pid!)).toBe(false);
  });
});

describe('bounded memory under a flood', () => {
  it('keeps ≤ N lines of ≤ M chars while the log gets every byte of ~50 MB', async () => {
    const lineLen = 100;
    const lines = 500_000; // 50 MB
    const argv = node(`
      const line = 'x'.repeat(${lineLen - 1}) + '\\n';
      const block = line.repeat(1000);
      let left = ${lines / 1000};
      const pump = () => { while (left > 0) { left--; if (!process.stdout.write(block)) { process.stdout.once('drain', pump); return; } } };
      pump();
    `);
    const h = startProcess(spec(argv, { ringLines: 200 }));
    let delivered = 0;
    h.onLine(() => delivered++);
    const r = await h.result;
    expect(r.exitCode).toBe(0);
    expect(r.bytesOut).toBe(lineLen * lines);
    expect(r.tail.length).toBeLessThanOrEqual(200);
    expect(r.tail.every((l) => l.length <= 2000 + 40)).toBe(true);
    expect(h.lines().length).toBeLessThanOrEqual(200);
    // Subscribers see bursts collapsed, not half a million callbacks.
    expect(delivered).toBeLessThan(lines);
    const log = readFileSync(join(dir, 'run.log'));
    const headerEnd = log.indexOf(10) + 1;
    const footerStart = log.lastIndexOf('[checkroom] end');
    expect(footerStart - headerEnd).toBe(lineLen * lines);
  });

  it('caps the log of a flooding agent: the first bytes, a note of what was left out, the last lines', async () => {
    const argv = node(`
      const block = ('y'.repeat(99) + '\\n').repeat(1000);
      for (let i = 0; i < 50; i++) process.stdout.write(block);
      process.stdout.write('the very last line\\n');
    `);
    const h = startProcess(spec(argv, { ringLines: 20, logMaxBytes: 1024 * 1024 }));
    const r = await h.result;
    expect(r.exitCode).toBe(0);
    expect(r.bytesOut).toBe(5_000_000 + 19);
    const log = readFileSync(join(dir, 'run.log'), 'utf8');
    const body = log.slice(log.indexOf('\n') + 1);
    // Exactly the first MiB of output, then the note, the last lines, the footer.
    expect(body.slice(0, 1024 * 1024)).toBe(('y'.repeat(99) + '\n').repeat(11000).slice(0, 1024 * 1024));
    expect(log).toContain(`[checkroom] log capped at 1048576 bytes of output: ${5_000_019 - 1024 * 1024} bytes were not written; the last 20 lines (sanitized) follow`);
    expect(log.trimEnd().split('\n').at(-2)).toBe('the very last line');
    expect(log.trimEnd().split('\n').at(-1)).toMatch(/^\[checkroom\] end .* bytes=5000019$/);
    expect(log.length).toBeLessThan(1024 * 1024 + 10_000);
  });

  it('bounds a 5 MB line without newline and still logs all of it', async () => {
    const size = 5 * 1024 * 1024;
    const r = await startProcess(spec(node(`process.stdout.write('q'.repeat(${size}));`))).result;
    expect(r.tail).toHaveLength(1);
    expect(r.tail[0]).toBe('q'.repeat(2000) + `… [truncated ${size - 2000} chars]`);
    expect(r.bytesOut).toBe(size);
    const log = readFileSync(join(dir, 'run.log'), 'utf8').split('\n');
    expect(log[1]).toBe('q'.repeat(size));
    expect(log[2]).toMatch(/^\[checkroom\] end .*exit=0/);
  });
});
