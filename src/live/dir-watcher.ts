import { watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';

// Bounded live watching: one OS watch per DIRECTORY that can hold an artifact, never one
// per file. chokidar 5 puts a watch on every file (measured in `npm run bench`: one
// inotify watch per file, ~50k at 50k files); an inotify watch on a directory already
// reports every name created, changed, renamed into place or deleted inside it, which is
// all we need. When the system's watch limit is hit (ENOSPC / EMFILE) the caller falls
// back to periodic rescans and says so on screen.

export interface DirWatcher {
  readonly count: number;
  add(dir: string): boolean;
  /** This directory has a watch now. */
  has(dir: string): boolean;
  /** Forget a directory's watch (it was deleted or replaced; inotify watched the old inode). */
  remove(dir: string): void;
  close(): void;
}

export class WatchLimitError extends Error {
  constructor(readonly code: string) {
    super(
      code === 'ENOSPC'
        ? 'the system watch limit is reached (fs.inotify.max_user_watches); falling back to rescans every 2 s'
        : `cannot watch (${code}); falling back to rescans every 2 s`,
    );
  }
}

/** `onEvent(dir, name)` gets the directory (relative to root) and the file name inside it. */
export function createDirWatcher(root: string, onEvent: (dir: string, name: string | null) => void): DirWatcher {
  const watchers = new Map<string, FSWatcher>();
  return {
    get count() {
      return watchers.size;
    },
    add(dir: string): boolean {
      if (watchers.has(dir)) return true;
      let w: FSWatcher;
      try {
        w = watch(join(root, dir), { persistent: false }, (_event, name) => onEvent(dir, name ? name.toString() : null));
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code ?? 'EUNKNOWN';
        if (code === 'ENOENT' || code === 'ENOTDIR') return false; // not there yet: the parent's watch will tell us
        throw new WatchLimitError(code);
      }
      w.on('error', () => {
        // The directory vanished (deleted or renamed away): forget it; the parent's watch re-adds it.
        w.close();
        watchers.delete(dir);
        onEvent(dir, null);
      });
      watchers.set(dir, w);
      return true;
    },
    has(dir: string) {
      return watchers.has(dir);
    },
    remove(dir: string) {
      watchers.get(dir)?.close();
      watchers.delete(dir);
    },
    close() {
      for (const w of watchers.values()) w.close();
      watchers.clear();
    },
  };
}
