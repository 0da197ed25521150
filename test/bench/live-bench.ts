import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { generateWorkspace } from './generate.js';
import { markerTargetsOf } from './live-targets.js';
import { goal, verdict } from './goals.js';

// Issue 10 item 6: change → state latency p50/p95 next to a bare `fs.watch` printer on the
// same files (the floor), the engine's RSS, OS watches ours vs chokidar's. Goals (issue 10):
// p95 ≤ 50 ms at 50k and 100k, flat in N; control room RSS at 50k ≤ 150 MB.

const child = (name: string, args: string[]) => {
  const r = spawnSync(process.execPath, [join(import.meta.dirname, name), ...args], { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`${name} failed: ${r.stderr}`);
  return JSON.parse(r.stdout);
};


export async function liveBench(base: string, sizes: number[], lines: string[]): Promise<void> {
  lines.push('## Live watching: marker → state latency, vs a bare fs.watch printer; watches, memory', '');
  lines.push('| files | ready | p50 | p95 | fs.watch p50 | fs.watch p95 | p95 ratio | p95 ≤ 50 ms | OS watches (ours) | RSS after (ours) | peak RSS (ours) | OS watches (chokidar 5) | RSS (chokidar 5) |');
  lines.push('|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|');
  const rss: [number, number][] = [];
  const p95s: [number, number][] = [];
  for (const n of sizes) {
    const dir = generateWorkspace(join(base, `ws-${n}`), n);
    const targets = join(base, `targets-${n}.json`);
    writeFileSync(targets, JSON.stringify(await markerTargetsOf(dir, 40)));
    const ours = child('live-child.js', [dir, targets]);
    const bare = child('fswatch-child.js', [dir, targets]);
    const cho = child('chokidar-child.js', [dir]);
    rss.push([n, ours.rssMb]);
    p95s.push([n, ours.p95]);
    lines.push(
      `| ${n} | ${ours.readyMs.toFixed(0)} ms | ${ours.p50.toFixed(1)} ms | ${ours.p95.toFixed(1)} ms | ${bare.p50.toFixed(2)} ms | ${bare.p95.toFixed(2)} ms | ${(ours.p95 / bare.p95).toFixed(1)}× | ${n >= 50_000 ? goal(`live marker → state p95, ${n / 1000}k files`, `${ours.p95.toFixed(1)} ms`, '≤ 50 ms', ours.p95, 50) : verdict(ours.p95, 50)} | ${ours.watches} | ${ours.rssMb.toFixed(0)} MB | ${ours.maxRssMb.toFixed(0)} MB | ${cho.watches} | ${cho.maxRssMb.toFixed(0)} MB |`,
    );
    console.error(`live ${n}: done`);
  }
  const at50k = rss.find(([n]) => n === 50_000);
  if (at50k) lines.push('', `Engine RSS at 50k after the run: ${at50k[1].toFixed(0)} MB (goal ≤ 150 MB: ${goal('engine RSS at 50k (live workspace)', `${at50k[1].toFixed(0)} MB`, '≤ 150 MB', at50k[1], 150, 'MB')}).`);
  // Flat in N: the p95 at the largest size over the one at 50k (1.0 is flat; noise is ±0.5).
  const p50k = p95s.find(([n]) => n === 50_000);
  const top = p95s.at(-1)!;
  if (p50k && top[0] > 50_000) lines.push(`p95 at ${top[0]} / p95 at 50k: ${(top[1] / p50k[1]).toFixed(2)} (goal: flat in N: ${goal(`live p95 at ${top[0] / 1000}k ÷ p95 at 50k`, (top[1] / p50k[1]).toFixed(2), '≤ 1.5 (flat, with noise)', top[1] / p50k[1], 1.5)}).`);
  lines.push('');
}
