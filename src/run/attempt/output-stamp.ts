import { statSync } from 'node:fs';

// What a run's output file was when the run ended: its size and mtime as the
// file system reports them, so "unchanged since its writer was cut off" compares the file with
// itself, never with the process clock (an NFS server's clock, or faketime, differs from it).

/** A file as the file system reported it: its size and mtime. */
export interface OutputStamp {
  bytes: number;
  mtimeMs: number;
}

/** What an exit or reaped event says of the run's output file: null when there was none; absent in older journals. */
export interface Stamped {
  output?: OutputStamp | null;
}

/** The file's size and mtime, or null when there is no regular file there. */
export function outputStamp(abs: string | null): OutputStamp | null {
  if (abs === null) return null;
  try {
    const st = statSync(abs);
    return st.isFile() ? { bytes: st.size, mtimeMs: st.mtimeMs } : null;
  } catch {
    return null;
  }
}
