import { loadWorkspace } from '../../src/workspace.js';

// One full scan in a fresh process, so its wall time and peak RSS stand alone.
const t0 = performance.now();
const s = await loadWorkspace(process.argv[2]);
const ms = performance.now() - t0;
process.stdout.write(JSON.stringify({ ms, maxRssKb: process.resourceUsage().maxRSS, cells: s.cells.length, partials: s.partials.length }));
