import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { generateWorkspace } from './generate.js';
import { mb, median } from './measure.js';

// Issue 10 items 1–3: `checkroom status --json` as operators run it (the bundled bin, a
// fresh process, output to a pipe that discards it), warm (the facts cache valid) and cold
// (--no-cache), next to `grep -rl _COMPLETE`, `find -type f` and `rg -l` (when installed) on
// the same tree in the same run. CPU is user + sys from /usr/bin/time; ratios are what we
// track. Goals at 50k: warm ≤ 1.0× grep, cold ≤ 2× grep, peak RSS ≤ 120 MB (≤ 200 MB at 100k).

const BIN = join(import.meta.dirname, '..', '..', 'bundle', 'checkroom.js');
const TIME = '/usr/bin/time';
const RUNS = 5;

interface Cost {
  wallMs: number;
  cpuMs: number;
  maxRssKb: number | null;
}

/** One run of `cmd` with its stdout discarded: wall (ours), CPU and peak RSS (/usr/bin/time). */
function cost(cmd: string, args: string[]): Cost {
  const t0 = performance.now();
  const r = spawnSync(TIME, ['-f', '%U %S %M', cmd, ...args], { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] });
  const wallMs = performance.now() - t0;
  const [u, s, m] = (r.stderr.trim().split('\n').at(-1) ?? '').split(' ').map(Number);
  if (r.status !== 0 && r.status !== 1) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr.slice(0, 300)}`);
  return { wallMs, cpuMs: (u + s) * 1000, maxRssKb: Number.isFinite(m) ? m : null };
}

/** Median wall and CPU, peak RSS, of RUNS runs. */
function measure(cmd: string, args: string[]): Cost {
  const runs = Array.from({ length: RUNS }, () => cost(cmd, args));
  const rss = runs.map((r) => r.maxRssKb).filter((x): x is number => x !== null);
  return { wallMs: median(runs.map((r) => r.wallMs)), cpuMs: median(runs.map((r) => r.cpuMs)), maxRssKb: rss.length ? Math.max(...rss) : null };
}

const has = (cmd: string): boolean => spawnSync(cmd, ['--version'], { stdio: 'ignore' }).status === 0;
const ms = (x: number): string => `${x.toFixed(0)} ms`;
// /usr/bin/time counts CPU in 10 ms steps: below that a ratio says nothing.
const ratio = (a: number, b: number): string => (b < 10 ? 'n/a' : `${(a / b).toFixed(2)}×`);

export function scanBench(base: string, sizes: number[], lines: string[]): void {
  if (!existsSync(TIME)) {
    lines.push('## status --json vs grep: skipped (no /usr/bin/time for CPU and peak RSS)', '');
    return;
  }
  const rg = has('rg');
  lines.push(`## status --json vs grep -rl, find -type f${rg ? ', rg -l' : ''} (median of ${RUNS}; CPU = user + sys; page cache warm)`, '');
  lines.push(`| files | find CPU | grep CPU / wall / RSS |${rg ? ' rg CPU |' : ''} warm CPU / wall / RSS | cold CPU / wall / RSS | warm ÷ grep (CPU, wall) | cold ÷ grep (CPU, wall) |`);
  lines.push(`|---:|---:|---:|${rg ? '---:|' : ''}---:|---:|---:|---:|`);
  for (const n of sizes) {
    const dir = generateWorkspace(join(base, `ws-${n}`), n);
    cost('grep', ['-rl', '_COMPLETE', dir]); // the page cache, once
    // The cache: built, then settled (a file changed within a few seconds of a scan is
    // re-read as racily clean until a later scan has seen it settle).
    cost(process.execPath, [BIN, 'status', dir, '--json']);
    cost(process.execPath, [BIN, 'status', dir, '--json']);
    const find = measure('find', [dir, '-type', 'f']);
    const grep = measure('grep', ['-rl', '_COMPLETE', dir]);
    const rgc = rg ? measure('rg', ['-l', '_COMPLETE', dir]) : null;
    const warm = measure(process.execPath, [BIN, 'status', dir, '--json']);
    const cold = measure(process.execPath, [BIN, 'status', dir, '--json', '--no-cache']);
    const cell = (c: Cost) => `${ms(c.cpuMs)} / ${ms(c.wallMs)} / ${mb(c.maxRssKb)}`;
    lines.push(
      `| ${n} | ${ms(find.cpuMs)} | ${cell(grep)} |${rgc ? ` ${ms(rgc.cpuMs)} |` : ''} ${cell(warm)} | ${cell(cold)} | ${ratio(warm.cpuMs, grep.cpuMs)}, ${ratio(warm.wallMs, grep.wallMs)} | ${ratio(cold.cpuMs, grep.cpuMs)}, ${ratio(cold.wallMs, grep.wallMs)} |`,
    );
    console.error(`status ${n}: done`);
  }
  lines.push('', 'Goals (issue 10): at 50k warm ≤ 1.0× grep, cold ≤ 2× grep; peak RSS ≤ 120 MB at 50k, ≤ 200 MB at 100k.', '');
}
