import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { startProcess } from '../../src/run/process/process.js';
import { median } from './measure.js';

// Issue "launch agents", done-when: spawn overhead — our watched launch (own process group,
// log file, ring buffer, watchdog, group reaping) against a bare child_process.spawn of the
// same command — and the memory of 8 agents streaming output at full speed.

const bare = (argv: string[]): Promise<number> =>
  new Promise((resolve) => {
    const t0 = performance.now();
    const c = spawn(argv[0], argv.slice(1), { stdio: 'ignore' });
    c.on('exit', () => resolve(performance.now() - t0));
  });

const ours = async (argv: string[], dir: string, i: number): Promise<number> => {
  const t0 = performance.now();
  const h = startProcess({ runId: `b${i}`, argv, cwd: dir, env: {}, logPath: join(dir, `b${i}.log`), outputPath: null, idleTimeoutMs: 10_000, timeoutMs: 60_000, graceMs: 500 });
  await h.result;
  return performance.now() - t0;
};

export async function spawnBench(lines: string[]): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'checkroom-spawn-'));
  const argv = ['/bin/true'];
  const b: number[] = [];
  const o: number[] = [];
  for (let i = 0; i < 30; i++) {
    b.push(await bare(argv));
    o.push(await ours(argv, dir, i));
  }
  lines.push('## Launching agents', '');
  lines.push('| what | bare child_process.spawn | checkroom startProcess | ratio |', '|---|---:|---:|---:|');
  lines.push(`| spawn → exit of /bin/true (median of 30) | ${median(b).toFixed(1)} ms | ${median(o).toFixed(1)} ms | ${(median(o) / median(b)).toFixed(2)} |`);

  // 8 children flooding stdout (~40 MB each, some lines 1 MB long): RSS stays bounded by the ring buffers.
  const flood = `const big='x'.repeat(1<<20); let n=0; const w=()=>{ while(n<40){ n++; if(!process.stdout.write((n%5?'line '+n+' '+'y'.repeat(200)+'\\n':big+'\\n').repeat(n%5?4000:1))) return process.stdout.once('drain', w);} }; w();`;
  const rss0 = process.memoryUsage().rss;
  let peak = rss0;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const t0 = performance.now();
  const runs = Array.from({ length: 8 }, (_, i) =>
    startProcess({ runId: `f${i}`, argv: [process.execPath, '-e', flood], cwd: dir, env: {}, logPath: join(dir, `f${i}.log`), outputPath: null, idleTimeoutMs: 30_000, timeoutMs: 120_000, graceMs: 500 }),
  );
  const outs = await Promise.all(runs.map((r) => r.result));
  clearInterval(timer);
  const mbOut = outs.reduce((a, r) => a + r.bytesOut, 0) / 2 ** 20;
  lines.push(
    `| 8 agents streaming at full speed: ${mbOut.toFixed(0)} MB of output in ${((performance.now() - t0) / 1000).toFixed(1)} s | — | RSS ${(rss0 / 2 ** 20).toFixed(0)} → peak ${(peak / 2 ** 20).toFixed(0)} MB | ring ≤ ${runs[0].lines().length} lines each |`,
  );
  // The control room's engine (live workspace + supervisor) against a bare parent, same 8 floods.
  const child = (mode: string) => {
    const r = spawnSync(process.execPath, [join(import.meta.dirname, 'agents-child.js'), mode, '40'], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`agents-child ${mode}: ${r.stderr}`);
    return JSON.parse(r.stdout) as { peakMb: number; seconds: number; outputMb: number };
  };
  const cr = child('control-room');
  const bareRun = child('bare');
  lines.push(
    `| control room engine (live workspace + supervisor) while 8 agents stream ${cr.outputMb.toFixed(0)} MB at full speed: peak RSS | bare parent discarding the output: ${bareRun.peakMb.toFixed(0)} MB (${bareRun.seconds.toFixed(1)} s) | ${cr.peakMb.toFixed(0)} MB (${cr.seconds.toFixed(1)} s) | ${(cr.peakMb / bareRun.peakMb).toFixed(2)} |`,
  );
  lines.push('');
}
