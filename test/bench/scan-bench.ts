import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { generateWorkspace } from './generate.js';
import { mb, median } from './measure.js';
import { goal as recordGoal, unmeasured } from './goals.js';

// Issue 10 items 1, 2 and 6: `checkroom status --json` as operators run it (the bundled bin,
// a fresh process, output to a pipe that discards it), warm (the facts cache valid) and
// cold (--no-cache), next to `grep -rl _COMPLETE`, `find -type f` and `rg -l` (when
// installed) on the same tree in the same run. CPU is user + sys from /usr/bin/time. The
// commands alternate within each round, so a change of machine load hits them alike: the
// ratios are what we track, absolute times are noise on a shared machine.

// The bin as an operator runs it: through its shebang, with the node flags it names.
const BIN = join(import.meta.dirname, '..', '..', 'bundle', 'checkroom.js');
const TIME = '/usr/bin/time';
const RUNS = 5;
/** The scan is measured, not a control room's answer (the socket bench has those). */
const ENV = { ...process.env, CHECKROOM_SOCKET: 'off' };

interface Cost {
  wallMs: number;
  cpuMs: number;
  maxRssKb: number | null;
}

/** One run of `cmd` with its stdout discarded: wall (ours), CPU and peak RSS (/usr/bin/time). */
function cost(cmd: string, args: string[]): Cost {
  const t0 = performance.now();
  const r = spawnSync(TIME, ['-f', '%U %S %M', cmd, ...args], { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'], env: ENV });
  const wallMs = performance.now() - t0;
  const [u, s, m] = (r.stderr.trim().split('\n').at(-1) ?? '').split(' ').map(Number);
  if (r.status !== 0 && r.status !== 1) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr.slice(0, 300)}`);
  return { wallMs, cpuMs: (u + s) * 1000, maxRssKb: Number.isFinite(m) ? m : null };
}

/** RUNS rounds of every command in turn; per command the median wall and CPU and the peak RSS. */
function measureAll(cmds: Record<string, [string, string[]]>): Record<string, Cost> {
  const runs: Record<string, Cost[]> = Object.fromEntries(Object.keys(cmds).map((k) => [k, []]));
  for (let r = 0; r < RUNS; r++) for (const [k, [cmd, args]] of Object.entries(cmds)) runs[k].push(cost(cmd, args));
  return Object.fromEntries(
    Object.entries(runs).map(([k, rs]) => {
      const rss = rs.map((x) => x.maxRssKb).filter((x): x is number => x !== null);
      return [k, { wallMs: median(rs.map((x) => x.wallMs)), cpuMs: median(rs.map((x) => x.cpuMs)), maxRssKb: rss.length ? Math.max(...rss) : null }];
    }),
  );
}

const has = (cmd: string): boolean => spawnSync(cmd, ['--version'], { stdio: 'ignore' }).status === 0;
const ms = (x: number): string => `${x.toFixed(0)} ms`;
// /usr/bin/time counts CPU in 10 ms steps: below that a ratio says nothing.
const ratio = (a: number, b: number): string => (b < 10 ? 'n/a' : `${(a / b).toFixed(2)}×`);

/** The goals of issue 10, where they are set: CPU vs grep at 50k, peak RSS at 50k and 100k. */
function goal(what: 'warm' | 'cold', n: number, c: Cost, grep: Cost): string {
  const parts: string[] = [];
  const cpuGoal = what === 'warm' ? 1.0 : 2.0;
  if (n === 50_000 && grep.cpuMs >= 10) {
    const r = c.cpuMs / grep.cpuMs;
    parts.push(`CPU ${recordGoal(`status --json 50k, ${what}, CPU ÷ grep -rl`, `${r.toFixed(2)}×`, `≤ ${cpuGoal.toFixed(1)}×`, r, cpuGoal)} (${r.toFixed(2)}×, goal ≤ ${cpuGoal.toFixed(1)}×)`);
  } else if (n === 50_000) unmeasured(`status --json 50k, ${what}, CPU ÷ grep -rl`, `≤ ${cpuGoal.toFixed(1)}×`, "grep's CPU under /usr/bin/time's 10 ms step");
  const rssGoal = n === 50_000 ? 120 : n === 100_000 ? 200 : null;
  if (rssGoal !== null && c.maxRssKb !== null) {
    const m = c.maxRssKb / 1024;
    parts.push(`RSS ${recordGoal(`status --json ${n / 1000}k, ${what}, peak RSS`, `${m.toFixed(0)} MB`, `≤ ${rssGoal} MB`, m, rssGoal, 'MB')} (goal ≤ ${rssGoal} MB)`);
  }
  return parts.join('; ') || '—';
}

export function scanBench(base: string, sizes: number[], lines: string[]): void {
  if (!existsSync(TIME)) {
    lines.push('## status --json vs grep: skipped (no /usr/bin/time for CPU and peak RSS)', '');
    return;
  }
  const rg = has('rg');
  lines.push(`## status --json, warm and cold, vs grep -rl, find -type f${rg ? ', rg -l' : ' (rg not installed)'} (median of ${RUNS} alternating rounds; CPU = user + sys; page cache warm)`, '');
  lines.push(`| files | command | CPU | wall | peak RSS | CPU ÷ grep | wall ÷ grep | CPU ÷ find |${rg ? ' CPU ÷ rg |' : ''} goal |`);
  lines.push(`|---:|---|---:|---:|---:|---:|---:|---:|${rg ? '---:|' : ''}---|`);
  for (const n of sizes) {
    const dir = generateWorkspace(join(base, `ws-${n}`), n);
    cost('grep', ['-rl', '_COMPLETE', dir]); // the page cache, once
    // The cache: built, then settled (a file changed within a few seconds of a scan is
    // re-read as racily clean until a later scan has seen it settle).
    cost(BIN, ['status', dir, '--json']);
    cost(BIN, ['status', dir, '--json']);
    const m = measureAll({
      'grep -rl': ['grep', ['-rl', '_COMPLETE', dir]],
      'find -type f': ['find', [dir, '-type', 'f']],
      ...(rg ? { 'rg -l': ['rg', ['-l', '_COMPLETE', dir]] as [string, string[]] } : {}),
      'status --json (warm)': [BIN, ['status', dir, '--json']],
      'status --json --no-cache (cold)': [BIN, ['status', dir, '--json', '--no-cache']],
    });
    const grep = m['grep -rl'];
    const find = m['find -type f'];
    for (const [k, c] of Object.entries(m)) {
      const ours = k.startsWith('status');
      const g = ours ? goal(k.includes('warm') ? 'warm' : 'cold', n, c, grep) : '—';
      const vsRg = rg ? ` ${ratio(c.cpuMs, m['rg -l'].cpuMs)} |` : '';
      lines.push(`| ${n} | ${k} | ${ms(c.cpuMs)} | ${ms(c.wallMs)} | ${mb(c.maxRssKb)} | ${ratio(c.cpuMs, grep.cpuMs)} | ${ratio(c.wallMs, grep.wallMs)} | ${ratio(c.cpuMs, find.cpuMs)} |${vsRg} ${g} |`);
    }
    console.error(`status ${n}: done`);
  }
  lines.push('', 'Goals (issue 10): at 50k warm ≤ 1.0× grep, cold ≤ 2× grep (CPU); peak RSS ≤ 120 MB at 50k, ≤ 200 MB at 100k.', '');
}
