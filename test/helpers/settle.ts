import { readdirSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Make every file under `root` look written `ms` ago, on the file system's own clock (the
 * files' times, not Date.now(): CI's second pass runs under faketime): a workspace a
 * session left behind, past any quiet window.
 */
export function settle(root: string, ms = 600_000): void {
  for (const e of readdirSync(root, { withFileTypes: true, recursive: true })) {
    if (!e.isFile()) continue;
    const p = join(e.parentPath, e.name);
    const st = statSync(p);
    const t = new Date(st.mtimeMs - ms);
    utimesSync(p, t, t);
  }
}
