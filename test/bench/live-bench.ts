import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { generateWorkspace } from './generate.js';

// Issue "control room", done-when: change-to-screen latency p50/p95 at 1k and 50k files,
// OS watches and memory at 50k — ours next to chokidar on the same tree.

const child = (name: string, args: string[]) => {
  const r = spawnSync(process.execPath, [join(import.meta.dirname, name), ...args], { encoding: 'utf8', maxBuffer: 1 << 24 });
  if (r.status !== 0) throw new Error(`${name} failed: ${r.stderr}`);
  return JSON.parse(r.stdout);
};

export function liveBench(base: string, sizes: number[], lines: string[]): void {
  lines.push('## Live watching: change → state latency, watches, memory', '');
  lines.push('| files | ready | p50 | p95 | OS watches (ours) | RSS (ours) | OS watches (chokidar 5) | RSS (chokidar 5) | chokidar ready |');
  lines.push('|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const n of sizes) {
    const dir = generateWorkspace(join(base, `ws-${n}`), n);
    const ours = child('live-child.js', [dir, '40']);
    const cho = child('chokidar-child.js', [dir]);
    lines.push(
      `| ${n} | ${ours.readyMs.toFixed(0)} ms | ${ours.p50.toFixed(1)} ms | ${ours.p95.toFixed(1)} ms | ${ours.watches} | ${ours.maxRssMb.toFixed(0)} MB | ${cho.watches} | ${cho.maxRssMb.toFixed(0)} MB | ${cho.readyMs.toFixed(0)} ms |`,
    );
    console.error(`live ${n}: done`);
  }
  lines.push('');
}
