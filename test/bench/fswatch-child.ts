import { appendFileSync, readFileSync, watch, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pct } from './measure.js';
import { GAP_MS, readTargets } from './live-targets.js';

// The floor for change → screen (issue 10 item 6): a bare `fs.watch` on the same
// directories that prints a line on each event. Measured like live-child.ts: the same files
// get the same marker, one at a time, the clock stops when the line for that file is printed.

const dir = process.argv[2];
const targets = readTargets(process.argv[3]);
const dirs = [...new Set(targets.map((t) => dirname(t.path)))];
let waiting: { name: string; resolve: (t: number) => void } | null = null;
const watchers = dirs.map((d) =>
  watch(join(dir, d), { persistent: false }, (event, name) => {
    process.stderr.write(`${event} ${d}/${name}\n`);
    if (!waiting || `${d}/${name}` !== waiting.name) return;
    waiting.resolve(performance.now());
    waiting = null;
  }),
);
const keepAlive = setInterval(() => {}, 1000);
const lat: number[] = [];
for (const t of targets) {
  await new Promise((r) => setTimeout(r, GAP_MS));
  const seen = new Promise<number>((resolve) => (waiting = { name: t.path, resolve }));
  const start = performance.now();
  appendFileSync(join(dir, t.path), `\n<!-- ${t.marker} -->\n`);
  lat.push((await seen) - start);
}
for (const t of targets) {
  const p = join(dir, t.path);
  writeFileSync(p, readFileSync(p, 'utf8').replace(/\n<!-- [A-Z0-9_]+ -->\n$/, ''));
}
for (const w of watchers) w.close();
clearInterval(keepAlive);
process.stdout.write(JSON.stringify({ p50: pct(lat, 50), p95: pct(lat, 95), n: lat.length }));
