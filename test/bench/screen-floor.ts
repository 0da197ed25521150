import { readSync, openSync, closeSync, fstatSync, watch } from 'node:fs';
import { join } from 'node:path';

// The floor for marker → screen (issue 18 item 6): a bare process in the same tmux pane that
// watches the same directories with `fs.watch` and, on each event, reads the file's tail and
// prints ✅ (marker on the last line) or 🚧. What the terminal path itself costs: watch,
// read, write, tmux, with no model and no React. Argv: the workspace, then directories.

const [dir, ...dirs] = process.argv.slice(2);
const tail = Buffer.alloc(128);
const endsMarked = (path: string): boolean => {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const n = readSync(fd, tail, 0, tail.length, Math.max(0, size - tail.length));
    return /-->\s*$/.test(tail.subarray(0, n).toString('utf8'));
  } finally {
    closeSync(fd);
  }
};
process.stdout.write('floor ready\n');
for (const d of dirs)
  watch(join(dir, d), (_event, name) => {
    if (!name || !name.endsWith('.md')) return;
    try {
      process.stdout.write(`${d}/${name} ${endsMarked(join(dir, d, name)) ? '✅' : '🚧'}\n`);
    } catch {
      // the file went away between the event and the read: nothing to draw
    }
  });
