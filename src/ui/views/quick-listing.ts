import { readdirSync } from 'node:fs';
import { join } from 'node:path';

// The first frame's progress line: how many files the scan is about to
// read, from a directory listing alone — no file is opened, so it costs a fraction of the
// scan (names only: ~0.1 s at 50k files). Hidden directories (.checkroom, .git) are not
// the pipeline's and are skipped, as the scan skips them. Bounded: past `limit` it stops.

/** Regular files under `dir`, or null when it cannot be listed (the scan then says why). */
export function countFiles(dir: string, limit = 1_000_000): number | null {
  let n = 0;
  const stack = [dir];
  try {
    readdirSync(dir);
  } catch {
    return null;
  }
  while (stack.length > 0 && n < limit) {
    const d = stack.pop()!;
    let entries;
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      continue; // unreadable: the scan reports it
    }
    for (const e of entries) {
      if (e.name.startsWith('.')) continue;
      if (e.isDirectory()) stack.push(join(d, e.name));
      else if (e.isFile()) n++;
    }
  }
  return Math.min(n, limit);
}
