import { openSync, readSync, fstatSync, closeSync, constants } from 'node:fs';
import type { FileFacts } from '../types.js';
import { checkMarker } from './marker.js';
import { countChars } from './count-chars.js';

// Facts about one artifact with as little work as we can: one open and one read for files
// up to FIRST_READ (most book artifacts), the marker checked on bytes (only the last line
// is decoded), characters counted without decoding. Larger files get an fstat, a tail read
// for the marker and a chunked count, so memory stays bounded whatever the size. The tail
// text that triage needs is decoded only for files without their marker.
// Sync calls on purpose: for tens of thousands of small cached files they beat the libuv
// thread pool by a wide margin (measured in `npm run bench`).

export const TAIL_BYTES = 8 * 1024;
export const FIRST_READ = 256 * 1024;
const CHUNK = 1024 * 1024;
export const WHOLE_LIMIT = FIRST_READ;
const KEPT_TAIL_BYTES = 3 * 1024;

let scratch = Buffer.allocUnsafe(FIRST_READ);

const decodeTail = (buf: Uint8Array): string => {
  // Skip continuation bytes at the cut so we never start mid-character.
  let i = 0;
  while (i < buf.length && i < 4 && (buf[i] & 0xc0) === 0x80) i++;
  return Buffer.from(buf.buffer, buf.byteOffset + i, buf.length - i).toString('utf8');
};

const isSpace = (b: number): boolean => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;

/** The last non-blank line, trimmed, as bytes (no decoding). */
function lastLineOf(buf: Uint8Array): Buffer {
  let end = buf.length;
  while (end > 0 && isSpace(buf[end - 1])) end--;
  let start = end;
  while (start > 0 && buf[start - 1] !== 0x0a) start--;
  while (start < end && isSpace(buf[start])) start++;
  return Buffer.from(buf.buffer, buf.byteOffset + start, end - start);
}

const markerBytes = new Map<string, Buffer>();
/** The canonical marker line as bytes: the common case is compared without decoding. */
const canonical = (name: string): Buffer => {
  let b = markerBytes.get(name);
  if (!b) markerBytes.set(name, (b = Buffer.from(`<!-- ${name} -->`)));
  return b;
};

const names = new Map<string, Buffer>();
const nameBytes = (name: string): Buffer => {
  let b = names.get(name);
  if (!b) names.set(name, (b = Buffer.from(name)));
  return b;
};

const FENCE_A = Buffer.from('```');
const FENCE_B = Buffer.from('~~~');

/** Odd number of fence lines = a code block left open (a visible sign of truncation). */
function fenceOpen(data: Buffer): boolean {
  if (data.indexOf(FENCE_A) < 0 && data.indexOf(FENCE_B) < 0) return false;
  const m = data.toString('utf8').match(/^ {0,3}(```|~~~)/gm);
  return !!m && m.length % 2 === 1;
}

function examine(facts: FileFacts, data: Buffer, tail: Buffer, marker: string | null): void {
  if (data.includes(0)) facts.error = 'binary content (NUL bytes): not a text artifact';
  const last = lastLineOf(tail);
  const marked = marker !== null && (last.equals(canonical(marker)) || checkMarker(last.toString('utf8'), marker).marker);
  if (marked && !facts.error) {
    facts.marker = true;
    return;
  }
  // Not marked: decode the tail for triage and look for a marker that is not last. Only the
  // last KEPT_TAIL_BYTES are kept: triage reads the end, and at 50k files with 10%
  // half-products whole 8 KB tails would cost ~80 MB of strings.
  // The whole tail is decoded only when the marker's name occurs in it at all (rare).
  facts.fenceOpen = fenceOpen(data);
  if (marker && tail.indexOf(nameBytes(marker)) >= 0) facts.markerNotLast = checkMarker(decodeTail(tail), marker).markerNotLast;
  facts.tail = decodeTail(tail.length > KEPT_TAIL_BYTES ? tail.subarray(tail.length - KEPT_TAIL_BYTES) : tail);
}

export function readFileFacts(abs: string, rel: string, marker: string | null): FileFacts {
  const facts: FileFacts = { path: rel, exists: false, bytes: 0, chars: 0, marker: false, markerNotLast: false, mtimeMs: 0, tail: '', fenceOpen: false };
  let fd: number;
  try {
    // O_NONBLOCK: a FIFO under an artifact's name must not hang the scan (no effect on files).
    fd = openSync(abs, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return facts; // missing, or vanished mid-scan
    facts.exists = true;
    facts.error = code === 'EACCES' || code === 'EPERM' ? 'permission denied: cannot read this file' : `cannot read: ${code ?? String(err)}`;
    facts.unreadable = true;
    return facts;
  }
  facts.exists = true;
  try {
    // One fstat per file: the modification time says when a step finished (RESUME.md
    // freshness, "last done"), and a directory or FIFO must not be read as an artifact.
    const st = fstatSync(fd);
    if (!st.isFile()) throw Object.assign(new Error('not a regular file'), { code: 'EISDIR' });
    facts.mtimeMs = st.mtimeMs;
    const got = st.size < FIRST_READ ? readSync(fd, scratch, 0, FIRST_READ, 0) : FIRST_READ;
    if (got < FIRST_READ) {
      const data = scratch.subarray(0, got);
      facts.bytes = got;
      facts.chars = countChars(data);
      examine(facts, data, data.subarray(Math.max(0, got - TAIL_BYTES)), marker);
    } else {
      facts.bytes = st.size;
      const tail = Buffer.allocUnsafe(TAIL_BYTES);
      const n = readSync(fd, tail, 0, TAIL_BYTES, Math.max(0, st.size - TAIL_BYTES));
      facts.chars = countCharsChunked(fd, st.size);
      examine(facts, tail.subarray(0, n), tail.subarray(0, n), marker);
      // Fences can only be counted over the whole file; the tail alone would see a closed
      // block that starts before it as an open one.
      facts.fenceOpen = false;
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { ...facts, exists: false };
    facts.error = code === 'EISDIR' ? 'not a regular file' : `cannot read: ${code ?? String(err)}`;
    facts.unreadable = true;
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
    // A character split across chunks is still counted once: only lead bytes count.
    n += countChars(buf.subarray(0, got));
    pos += got;
  }
  return n;
}
