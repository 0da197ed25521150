import { readdirSync } from 'node:fs';
import { join } from 'node:path';

// One readdir per directory per read of a workspace (no call twice where
// once does): unit discovery lists the steps' directories, and the artifact scan then asks
// which of the expected files exist. At 50k files the second listing of the same large
// directories was ~7% of a warm `status`.

export class DirListings {
  private readonly names = new Map<string, string[] | NodeJS.ErrnoException>();
  private readonly sets = new Map<string, Set<string> | null>();

  constructor(private readonly root: string) {}

  /** The names in `dir` (workspace-relative), or the error listing it gave. */
  list(dir: string): string[] | NodeJS.ErrnoException {
    let r = this.names.get(dir);
    if (r === undefined) {
      try {
        r = readdirSync(join(this.root, dir));
      } catch (err) {
        r = err as NodeJS.ErrnoException;
      }
      this.names.set(dir, r);
    }
    return r;
  }

  /** The names as a set: empty for a missing directory, null when it cannot be listed (then files are opened one by one). */
  set(dir: string): Set<string> | null {
    let s = this.sets.get(dir);
    if (s === undefined) {
      const r = this.list(dir);
      s = Array.isArray(r) ? new Set(r) : r.code === 'ENOENT' ? new Set() : null;
      this.sets.set(dir, s);
    }
    return s;
  }
}
