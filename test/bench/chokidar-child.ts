import chokidar from 'chokidar';
import { inotifyWatches } from './live-child-watches.js';

// The baseline for watching: chokidar 5 on the same tree, as it comes.
const dir = process.argv[2];
const t0 = performance.now();
const w = chokidar.watch(dir, { ignoreInitial: true, persistent: true });
w.on('ready', async () => {
  const readyMs = performance.now() - t0;
  const watches = inotifyWatches();
  await w.close();
  process.stdout.write(JSON.stringify({ readyMs, watches, rssMb: process.memoryUsage().rss / 2 ** 20, maxRssMb: process.resourceUsage().maxRSS / 1024 }));
});
