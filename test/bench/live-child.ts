import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLiveWorkspace } from '../../src/live/live-workspace.js';
import { cellKey } from '../../src/types.js';
import { pct } from './measure.js';
import { inotifyWatches } from './live-child-watches.js';
import { GAP_MS, readTargets } from './live-targets.js';

// Change-to-state latency of the live model, its OS watch count and memory, in a fresh
// process. Each change is a real file write, GAP_MS after the last one was seen; the clock
// stops when a subscriber sees it. RSS is the engine's own (no React, no terminal).

const dir = process.argv[2];
const targets = readTargets(process.argv[3]);
const keepAlive = setInterval(() => {}, 1000); // the watches themselves do not hold the loop open
const t0 = performance.now();
const live = await createLiveWorkspace(dir);
const readyMs = performance.now() - t0;
const watches = inotifyWatches();
const readyMaxRssMb = process.resourceUsage().maxRSS / 1024;
// Cell positions are stable while the unit list is (the cells of a unit are replaced, not moved).
const indexOf = new Map(live.state.cells.map((c, i) => [c.path, i]));
const lat: number[] = [];
for (const t of targets) {
  const at = indexOf.get(t.path)!;
  const c = live.state.cells[at];
  const key = cellKey(c.unit, c.step);
  await new Promise((r) => setTimeout(r, GAP_MS));
  const seen = new Promise<number>((resolve) => {
    const off = live.subscribe((s) => {
      const now = s.cells[at];
      if (cellKey(now.unit, now.step) !== key || now.status !== 'done') return;
      off();
      resolve(performance.now());
    });
  });
  const start = performance.now();
  appendFileSync(join(dir, t.path), `\n<!-- ${t.marker} -->\n`);
  lat.push((await seen) - start);
}
// Settled memory of the engine after the run (the idle collector has had its quiet moment).
await new Promise((r) => setTimeout(r, 2000));
const rssMb = process.memoryUsage().rss / 2 ** 20;
// Put the tree back as it was, so runs compare.
for (const t of targets) {
  const p = join(dir, t.path);
  writeFileSync(p, readFileSync(p, 'utf8').replace(/\n<!-- [A-Z0-9_]+ -->\n$/, ''));
}
await live.close();
clearInterval(keepAlive);
process.stdout.write(JSON.stringify({ readyMs, readyMaxRssMb, watches, rssMb, maxRssMb: process.resourceUsage().maxRSS / 1024, p50: pct(lat, 50), p95: pct(lat, 95), n: lat.length }));
