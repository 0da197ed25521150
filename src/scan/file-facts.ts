import { openSync, readSync, fstatSync, closeSync } from 'node:fs';
import { isAscii } from 'node:buffer';
import type { FileFacts } from '../types.js';
import { checkMarker } from './marker.js';

// Facts about one artifact, read with as little I/O as we can: one open, one fstat and one
// read for files up to WHOLE_LIMIT (most book artifacts); larger files get a tail read for
// the marker and a chunked character count, so memory stays bounded whatever the size.
// Sync calls on purpose: for tens of thousands of small cached files they beat the
// libuv thread pool by a wide margin (measured in `npm run bench`).

export const TAIL_BYTES = 8 * 1024;
export const WHOLE_LIMIT = 1024 * 1024;
const CHUNK = 1024 * 1024;

let scratch = Buffer.allocUnsafe(64 * 1024);
const take = (n: number): Buffer => {
  if (scratch.length < n) scratch = Buffer.allocUnsafe(Math.max(n, scratch.length * 2));
  return scratch.subarray(0, n);
};

/** Characters, not bytes, not UTF-16 units: 60 Chinese characters are 60. */
export function countChars(buf: Buffer): number {
  let n = buf.length;
  // Count UTF-8 continuation bytes (10xxxxxx): each belongs to a character already counted.
  for (let i = 0; i < buf.length; i++) if ((buf[i] & 0xc0) === 0x80) n--;
  return n;
}

const charsOf = (buf: Buffer): number => {
  if (isAscii(buf)) return buf.length; // native, SIMD
  const s = buf.toString('utf8');
  let n = s.length;
  // astral characters take two UTF-16 units
  const astral = s.match(/[\uD800-\uDBFF]/g);
  if (astral) n -= astral.length;
  return n;
};

const decodeTail = (buf: Buffer): string => {
  // Skip continuation bytes at the cut so we never start mid-character.
  let i = 0;
  while (i < buf.length && i < 4 && (buf[i] & 0xc0) === 0x80) i++;
  return buf.subarray(i).toString('utf8');
};

export function readFileFacts(abs: string, rel: string, marker: string | null): FileFacts {
  const facts: FileFacts = { path: rel, exists: false, bytes: 0, chars: 0, marker: false, markerNotLast: false, mtimeMs: 0, tail: '', fenceOpen: false };
  let fd: number;
  try {
    fd = openSync(abs, 'r');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return facts; // missing, or vanished mid-scan
    facts.exists = true;
    facts.error = code === 'EACCES' || code === 'EPERM' ? 'permission denied: cannot read this file' : `cannot read: ${code ?? String(err)}`;
    return facts;
  }
  try {
    const st = fstatSync(fd);
    facts.exists = true;
    facts.mtimeMs = st.mtimeMs;
    if (!st.isFile()) {
      facts.error = 'not a regular file';
      return facts;
    }
    facts.bytes = st.size;
    if (st.size <= WHOLE_LIMIT) {
      const buf = take(st.size);
      const got = readSync(fd, buf, 0, st.size, 0);
      const data = buf.subarray(0, got);
      facts.bytes = got;
      if (data.includes(0)) facts.error = 'binary content (NUL bytes): not a text artifact';
      facts.chars = charsOf(data);
      facts.tail = decodeTail(data.subarray(Math.max(0, got - TAIL_BYTES)));
      facts.fenceOpen = fenceOpen(data);
    } else {
      const tailBuf = Buffer.allocUnsafe(TAIL_BYTES);
      const got = readSync(fd, tailBuf, 0, TAIL_BYTES, st.size - TAIL_BYTES);
      facts.tail = decodeTail(tailBuf.subarray(0, got));
      facts.chars = countCharsChunked(fd, st.size);
      facts.fenceOpen = fenceOpen(Buffer.from(facts.tail));
    }
    const m = checkMarker(facts.tail, marker);
    facts.marker = m.marker && !facts.error;
    facts.markerNotLast = m.markerNotLast;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { ...facts, exists: false };
    facts.error = `cannot read: ${code ?? String(err)}`;
  } finally {
    closeSync(fd);
  }
  return facts;
}

function countCharsChunked(fd: number, size: number): number {
  const buf = Buffer.allocUnsafe(CHUNK);
  let n = 0;
  for (let pos = 0; pos < size; ) {
    const got = readSync(fd, buf, 0, CHUNK, pos);
    if (got <= 0) break;
    n += countChars(buf.subarray(0, got));
    pos += got;
  }
  return n;
}

const FENCE = /^ {0,3}(```|~~~)/gm;

/** Odd number of fence lines = a code block left open (a visible sign of truncation). */
function fenceOpen(data: Buffer): boolean {
  if (!data.includes('```') && !data.includes('~~~')) return false;
  const m = data.toString('utf8').match(FENCE);
  return !!m && m.length % 2 === 1;
}
