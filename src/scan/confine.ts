import { closeSync, constants, openSync, readlinkSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, resolve, sep } from 'node:path';
import { sanitizeLine } from '../text/sanitize.js';
import { realOrResolved as real, within } from '../fs/confine-path.js';

// An artifact that is a symlink out of the workspace is not read or quoted:
// `drafts/ch01-draft.md -> /etc/shadow` must not put someone else's file on the screen or in
// RESUME.md. checkroom.yaml may name outside roots (`outside_roots:`) that links may point
// into. The common case costs nothing extra: the file is opened with O_NOFOLLOW, and only a
// link (ELOOP) is resolved; each directory is resolved once per scan. Checks before the open
// keep outside files from being opened at all; on Linux the opened fd is checked again
// through /proc/self/fd, so a directory swapped for a link between check and open (a race)
// is still refused.

export const FOLLOW_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK;
const NOFOLLOW_FLAGS = FOLLOW_FLAGS | constants.O_NOFOLLOW;
const PROC_FD = process.platform === 'linux';

// The same containment test as every write's (src/fs/confine-path.ts).

export class Confine {
  private readonly bases: string[];
  private readonly dirs = new Map<string, string | null>();

  /** `outside`: absolute, or relative to `root`. */
  constructor(root: string, outside: readonly string[] = []) {
    this.bases = [real(root), ...outside.map((o) => real(isAbsolute(o) ? o : resolve(root, o)))];
  }

  private allowed(path: string): boolean {
    return this.bases.some((b) => within(path, b));
  }

  /** The real directory of `abs` when it lies outside every allowed root, else null. */
  private dirEscape(abs: string): string | null {
    const dir = dirname(abs);
    if (!this.dirs.has(dir)) {
      let r: string | null;
      try {
        const d = realpathSync.native(dir);
        r = this.allowed(d) ? null : d;
      } catch {
        r = null; // missing: the open says so
      }
      this.dirs.set(dir, r);
    }
    return this.dirs.get(dir)!;
  }

  /** Whether `abs` lies in a directory that resolves outside every allowed root (resolved once per directory). */
  escapes(abs: string): boolean {
    return this.dirEscape(abs) !== null;
  }

  /**
   * Open `abs` for reading if it resolves inside the allowed roots. Returns the fd, or a
   * sentence saying why it was not opened (the escape, a loop). Other open errors throw.
   */
  open(abs: string): number | { refused: string } {
    const outDir = this.dirEscape(abs);
    if (outDir) return { refused: escapeSentence(outDir) };
    try {
      return this.verified(openSync(abs, NOFOLLOW_FLAGS));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ELOOP') throw err;
    }
    // The last component is a symlink: follow it only into an allowed root.
    let target: string;
    try {
      target = realpathSync.native(abs);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ELOOP') return { refused: 'a symlink loop: it points back at itself and cannot be read' };
      throw err; // ENOENT: a dangling link reads as a missing file
    }
    if (!this.allowed(target)) return { refused: escapeSentence(target) };
    return this.verified(openSync(target, FOLLOW_FLAGS));
  }

  /** The fd when the file it opened lies inside the allowed roots (where the OS can tell), else closed and refused. */
  private verified(fd: number): number | { refused: string } {
    if (!PROC_FD) return fd;
    let path: string;
    try {
      path = readlinkSync(`/proc/self/fd/${fd}`).replace(/ \(deleted\)$/, '');
    } catch {
      return fd; // no /proc here: the checks before the open are all there is
    }
    if (!path.startsWith('/') || this.allowed(path)) return fd;
    closeSync(fd);
    return { refused: escapeSentence(path) };
  }
}

export const ESCAPE_PREFIX = 'a symlink out of the workspace (to ';
const escapeSentence = (target: string): string =>
  `${ESCAPE_PREFIX}${sanitizeLine(target)}): not read; list its root under outside_roots in checkroom.yaml to allow it`;

/** The workspace root `abs` lies in, given its workspace-relative path. */
export const rootOf = (abs: string, rel: string): string => {
  const tail = rel.split('/').join(sep);
  return abs.endsWith(tail) ? abs.slice(0, abs.length - tail.length) || sep : dirname(abs);
};
