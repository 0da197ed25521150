import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { goal } from './goals.js';

// Issue 10: bytes written to the terminal for one update (a marker turns one cell done), Ink's
// full redraw next to what the control room writes (Ink's incremental frames through the
// cell-diff writer, src/ui/term/anchored-stdout.ts). Goal: ≤ 300 bytes.

const run = (mode: string): { bytes: number } => {
  const r = spawnSync(process.execPath, [join(import.meta.dirname, 'paint-child.js'), mode], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`paint-child failed: ${r.stderr}`);
  return JSON.parse(r.stdout.slice(r.stdout.indexOf('{'), r.stdout.lastIndexOf('}') + 1));
};

export function paintBench(lines: string[]): { bytes: number } {
  const full = run('full');
  const inc = run('incremental');
  lines.push('## Bytes per screen update (demo, 80×24, colour; one marker turns a cell done: 5 lines change)', '');
  lines.push('| full redraw (Ink default) | checkroom (changed cells only) | ratio | goal |', '|---:|---:|---:|---|');
  const v = goal('bytes per update when one count changes', `${inc.bytes} B`, '≤ 300 B', inc.bytes, 300, 'B');
  lines.push(`| ${full.bytes} B | ${inc.bytes} B | ${(inc.bytes / full.bytes).toFixed(2)} | ≤ 300 B: ${v} |`, '');
  return inc;
}
