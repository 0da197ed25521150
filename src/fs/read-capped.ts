import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { open } from 'node:fs/promises';

// Bounded input: a file checkroom reads whole is checked against a cap
// *before* any byte is read — a 55 MB checkroom.yaml took 1.8 GB of memory, and a 10 GB
// sparse file would not even fit a string. The size comes from fstat on the open handle, so
// a file swapped between a stat and the read cannot slip past the check, and the read stops
// at the cap even if the file grows while it is read.

/** What a capped read gives: the text, or why it was not read (size and cap in bytes). */
export type CappedRead = { ok: true; text: string; size: number } | { ok: false; size: number; cap: number };

/** 1536 → `1.5 KB`; sizes in messages, so the operator sees the magnitude at a glance. */
export const formatBytes = (n: number): string => {
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v >= 10 ? Math.round(v) : Math.round(v * 10) / 10} ${units[i]}`;
};

/** The one sentence every cap speaks: which file, its size, the cap, what to do. */
export const tooLargeMessage = (file: string, size: number, cap: number, todo: string): string =>
  `${file} is ${formatBytes(size)} (${size} bytes), over checkroom's ${formatBytes(cap)} cap for this file; it was not read: ${todo}`;

/** Read a file as UTF-8 if it is at most `cap` bytes. Errors (ENOENT, EACCES, EISDIR…) are thrown as is. */
export async function readTextCapped(path: string, cap: number): Promise<CappedRead> {
  // O_NONBLOCK: a FIFO under the file's name must not hang the open (it is refused below).
  const fh = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const st = await fh.stat();
    if (st.isDirectory()) throw Object.assign(new Error(`EISDIR: illegal operation on a directory, read '${path}'`), { code: 'EISDIR' });
    if (!st.isFile()) throw Object.assign(new Error(`${path} is not a regular file`), { code: 'ENOTREG' });
    if (st.size > cap) return { ok: false, size: st.size, cap };
    // Up to one byte past the cap: a file that grew past it since the fstat is caught too.
    let buf = Buffer.alloc(Math.min(cap + 1, st.size + 1));
    let off = 0;
    for (;;) {
      if (off === buf.length) {
        if (buf.length > cap) break;
        const bigger = Buffer.alloc(Math.min(cap + 1, buf.length * 2));
        buf.copy(bigger);
        buf = bigger;
      }
      const { bytesRead } = await fh.read(buf, off, buf.length - off, off);
      if (bytesRead === 0) break;
      off += bytesRead;
    }
    if (off > cap) return { ok: false, size: off, cap };
    return { ok: true, text: buf.subarray(0, off).toString('utf8'), size: off };
  } finally {
    await fh.close();
  }
}

/**
 * A small file whole, synchronously, with its mtime: null when it is missing, not a regular
 * file, over `max` bytes or unreadable (the caches under `.checkroom/` are only ever an
 * optimisation: any doubt reads as "no cache"). One open, then fstat on the descriptor.
 */
export function readWholeSync(path: string, max: number): { buf: Buffer; mtimeMs: number } | null {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return null;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > max) return null;
    const buf = Buffer.allocUnsafe(st.size);
    let off = 0;
    while (off < buf.length) {
      const got = readSync(fd, buf, off, buf.length - off, off);
      if (got <= 0) break;
      off += got;
    }
    return { buf: buf.subarray(0, off), mtimeMs: st.mtimeMs };
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}
