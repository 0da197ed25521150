import type { ProcSource } from './proc-source.js';

// Who holds the files at hand open: one pass over /proc per decision, for
// the files being decided on only, matched by device and inode (a renamed or hard-linked file
// is the same file; a path string is not). Only descriptors on one of those files cost a
// fdinfo read; everything else costs a readlink and, for a path, one stat.

/** O_ACCMODE bits of fdinfo's flags: 01 O_WRONLY, 02 O_RDWR (open(2)). */
const ACCMODE = 0o3;

export interface Holder {
  pid: number;
  /** The command name, raw (callers sanitize). */
  command: string;
  pgrp: number;
  /** The process's start, ms since the epoch: the writer has held the file at most since then. */
  startMs: number | null;
}

export interface HolderScan {
  /** `dev:ino` → the processes holding that file open for writing. */
  writers: Map<string, Holder[]>;
  /** Processes whose descriptors could not be read (other users', when not root). */
  unchecked: number;
  /** False without /proc: nobody could be checked. */
  checked: boolean;
}

export const fileKey = (dev: number | bigint, ino: number | bigint): string => `${dev}:${ino}`;

/** Opened for writing, by fdinfo's flags. */
export const writesBy = (flags: number): boolean => (flags & ACCMODE) === 0o1 || (flags & ACCMODE) === 0o2;

export function scanHolders(source: ProcSource, keys: ReadonlySet<string>): HolderScan {
  const writers = new Map<string, Holder[]>();
  if (!source.available) return { writers, unchecked: 0, checked: false };
  let unchecked = 0;
  if (keys.size === 0) return { writers, unchecked, checked: true };
  for (const pid of source.pids()) {
    const fds = source.fds(pid);
    if (fds === 'denied') unchecked++;
    if (fds === 'denied' || fds === null) continue;
    let info: Holder | null | undefined;
    for (const f of fds) {
      const key = fileKey(f.dev, f.ino);
      if (!keys.has(key)) continue;
      const flags = source.flags(pid, f.fd);
      if (flags === null || !writesBy(flags)) continue;
      if (info === undefined) {
        const i = source.info(pid);
        info = i && { pid, ...i };
      }
      if (!info) break;
      const list = writers.get(key) ?? [];
      if (!list.some((h) => h.pid === pid)) list.push(info);
      writers.set(key, list);
    }
  }
  return { writers, unchecked, checked: true };
}
