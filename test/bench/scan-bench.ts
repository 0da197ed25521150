import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { generateWorkspace } from './generate.js';
import { mb, repeat, timeCommand, type Sample } from './measure.js';

// Issue "checkroom core", item 10: the full scan against `find -type f` and
// `grep -rl _COMPLETE` on the same tree, in the same run. Target at 50k files: scan ≤ grep,
// peak RSS < 150 MB.

const CHILD = join(import.meta.dirname, 'scan-child.js');

const scanOnce = (dir: string): Sample => {
  const r = spawnSync(process.execPath, [CHILD, dir], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`scan failed: ${r.stderr}`);
  const j = JSON.parse(r.stdout);
  return { ms: j.ms, maxRssKb: j.maxRssKb };
};

const scanWall = (dir: string): Sample => {
  const s = timeCommand(process.execPath, [CHILD, dir]);
  return s;
};

export function scanBench(base: string, sizes: number[], lines: string[]): void {
  lines.push('## Full scan vs find and grep (median of 3, warm cache)', '');
  lines.push('| files | find -type f | grep -rl _COMPLETE | checkroom scan (in-process) | checkroom process (incl. node start) | scan / grep | scan RSS | grep RSS |');
  lines.push('|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const n of sizes) {
    const dir = generateWorkspace(join(base, `ws-${n}`), n);
    timeCommand('grep', ['-rl', '_COMPLETE', dir]); // warm the page cache once
    const find = repeat(3, () => timeCommand('find', [dir, '-type', 'f']));
    const grep = repeat(3, () => timeCommand('grep', ['-rl', '_COMPLETE', dir]));
    const scan = repeat(3, () => scanOnce(dir));
    const proc = repeat(3, () => scanWall(dir));
    lines.push(
      `| ${n} | ${find.ms.toFixed(0)} ms | ${grep.ms.toFixed(0)} ms | ${scan.ms.toFixed(0)} ms | ${proc.ms.toFixed(0)} ms | ${(scan.ms / grep.ms).toFixed(2)} (process ${(proc.ms / grep.ms).toFixed(2)}) | ${mb(scan.maxRssKb)} | ${mb(grep.maxRssKb)} |`,
    );
    console.error(`scan ${n}: done`);
  }
  lines.push('');
}
