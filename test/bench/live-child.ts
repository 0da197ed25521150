import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLiveWorkspace } from '../../src/live/live-workspace.js';
import { cellKey } from '../../src/types.js';
import { pct } from './measure.js';
import { inotifyWatches } from './live-child-watches.js';

// Change-to-state latency of the live model, its OS watch count and memory, in a fresh
// process. Each change is a real file write; the clock stops when a subscriber sees it.

const dir = process.argv[2];
const changes = Number(process.argv[3] ?? 40);
const keepAlive = setInterval(() => {}, 1000); // the watches themselves do not hold the loop open
const t0 = performance.now();
const live = await createLiveWorkspace(dir);
const readyMs = performance.now() - t0;
const watches = inotifyWatches();
const readyMaxRssMb = process.resourceUsage().maxRSS / 1024;
const targets = live.state.cells.filter((c) => c.status === 'partial' && c.path.endsWith('.md')).slice(0, changes);
const lat: number[] = [];
for (const c of targets) {
  const key = cellKey(c.unit, c.step);
  const marker = live.state.pipeline.steps.find((s) => s.id === c.step)!.marker!;
  const seen = new Promise<number>((resolve) => {
    const off = live.subscribe((s) => {
      if (s.cells.find((x) => cellKey(x.unit, x.step) === key)?.status === 'done') {
        off();
        resolve(performance.now());
      }
    });
  });
  const start = performance.now();
  appendFileSync(join(dir, c.path), `\n<!-- ${marker} -->\n`);
  lat.push((await seen) - start);
}
// Put the tree back as it was, so runs compare.
for (const c of targets) {
  const p = join(dir, c.path);
  writeFileSync(p, readFileSync(p, 'utf8').replace(/\n<!-- [A-Z0-9_]+ -->\n$/, ''));
}
await live.close();
clearInterval(keepAlive);
process.stdout.write(
  JSON.stringify({ readyMs, readyMaxRssMb, watches, rssMb: process.memoryUsage().rss / 2 ** 20, maxRssMb: process.resourceUsage().maxRSS / 1024, p50: pct(lat, 50), p95: pct(lat, 95), n: lat.length }),
);
