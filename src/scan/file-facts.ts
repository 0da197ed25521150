import { readSync, fstatSync, closeSync } from 'node:fs';
import type { FileFacts } from '../types.js';
import { checkMarker, markerShape } from './marker.js';
import { countChars } from './count-chars.js';
import { Confine, rootOf } from './confine.js';
import { BLANK_MAX, bufferReader, findLastLine, WINDOW, type ReadAt } from './last-line.js';

// Facts about one artifact with as little work as we can: one open and one read for files
// up to FIRST_READ (most book artifacts), the marker checked on bytes (only the last line
// is decoded), characters counted without decoding. Larger files get an fstat, a walk back
// from the end to the last non-blank line (last-line.ts) and a count that stops at what a
// verdict needs: a 10 GB sparse file costs a few windows, not 10 GB.
// Sync calls on purpose: for tens of thousands of small cached files they beat the libuv
// thread pool by a wide margin (measured in `npm run bench`); every read is bounded, so the
// live path never holds the event loop for long.

export const TAIL_BYTES = 8 * 1024;
export const FIRST_READ = 256 * 1024;
const CHUNK = 1024 * 1024;
export const WHOLE_LIMIT = FIRST_READ;
/** Characters are counted exactly up to this many bytes; past it `chars` is a lower bound. */
export const EXACT_COUNT_BYTES = 4 * 1024 * 1024;
const KEPT_TAIL_BYTES = 3 * 1024;
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

export interface FactsOptions {
  /** Allowed roots outside the workspace (checkroom.yaml `outside_roots`), or a Confine shared by one scan. */
  confine?: Confine;
  outside?: readonly string[];
  /** Characters a verdict needs at least (the triage threshold, a step's min_chars). */
  need?: number;
  /** Window of the walk back to the last line (tests make it tiny). */
  window?: number;
  /** Called with the byte count of every read (tests prove the reads are bounded). */
  onRead?: (bytes: number) => void;
}

const scratch = Buffer.allocUnsafe(FIRST_READ);

const decodeTail = (buf: Uint8Array): string => {
  // Skip continuation bytes at the cut so we never start mid-character.
  let i = 0;
  while (i < buf.length && i < 4 && (buf[i] & 0xc0) === 0x80) i++;
  return Buffer.from(buf.buffer, buf.byteOffset + i, buf.length - i).toString('utf8');
};

const markerBytes = new Map<string, Buffer>();
/** The canonical marker line as bytes: the common case is compared without decoding. */
const canonical = (name: string): Buffer => {
  let b = markerBytes.get(name);
  if (!b) markerBytes.set(name, (b = Buffer.from(`<!-- ${name} -->`)));
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

/** A BOM is not a character: it is an encoding signature. */
const bomAt0 = (head: Uint8Array): number => (head.length >= 3 && BOM.equals(head.subarray(0, 3)) ? 1 : 0);

const blank = (rel: string): FileFacts => ({ path: rel, exists: false, bytes: 0, chars: 0, marker: false, markerNotLast: false, mtimeMs: 0, tail: '', fenceOpen: false });

/** Marker, marker-shaped line and tail, from the exact last line and the bytes that end there. */
function examine(facts: FileFacts, read: ReadAt, size: number, marker: string | null, window: number): void {
  const last = findLastLine(read, size, window);
  if (last.lost) {
    // More blank bytes at the end than any artifact has: not done, and not guessed at.
    facts.error = `ends in more than ${BLANK_MAX / (1024 * 1024)} MB of blank lines: the last line was not looked for`;
    return;
  }
  const text = last.text;
  const marked = marker !== null && text !== null && (text.equals(canonical(marker)) || checkMarker(text.toString('utf8'), marker).marker);
  if (marked && !facts.error) {
    facts.marker = true;
    return;
  }
  // Not marked: the tail that triage reads ends at the last non-blank byte, so a long blank
  // run cannot hide the end of the text. Only KEPT_TAIL_BYTES are kept as a string: at 50k
  // files with 10% half-products whole 8 KB tails would cost ~80 MB of strings.
  const from = Math.max(0, last.end - TAIL_BYTES);
  const tail = Buffer.allocUnsafe(last.end - from);
  const got = Math.max(0, read(tail, tail.length, from));
  const bytes = tail.subarray(0, got);
  if (bytes.includes(0)) facts.error = 'binary content (NUL bytes): not a text artifact';
  if (marker && bytes.indexOf(marker) >= 0) facts.markerNotLast = checkMarker(decodeTail(bytes), marker).markerNotLast;
  const shape = marker && text ? markerShape(text.toString('utf8'), marker) : null;
  if (shape) facts.markerShape = { shape, expected: marker! };
  facts.tail = decodeTail(bytes.length > KEPT_TAIL_BYTES ? bytes.subarray(bytes.length - KEPT_TAIL_BYTES) : bytes);
}

/** Characters from `pos` on, chunk by chunk: exact up to EXACT_COUNT_BYTES, then only until `need` is reached. */
function countFrom(read: ReadAt, pos: number, size: number, counted: number, need: number): { chars: number; atLeast: boolean } {
  const buf = Buffer.allocUnsafe(CHUNK);
  let n = counted;
  while (pos < size) {
    if (pos >= EXACT_COUNT_BYTES && n >= need) return { chars: n, atLeast: true };
    const got = read(buf, Math.min(CHUNK, size - pos), pos);
    if (got <= 0) break;
    // A character split across chunks is still counted once: only lead bytes count.
    n += countChars(buf.subarray(0, got));
    pos += got;
  }
  return { chars: n, atLeast: false };
}

function readOpen(fd: number, facts: FileFacts, marker: string | null, opts: FactsOptions): void {
  // One fstat per file: the modification time says when a step finished (RESUME.md
  // freshness, "last done"), and a directory or FIFO must not be read as an artifact.
  const st = fstatSync(fd);
  if (!st.isFile()) throw Object.assign(new Error('not a regular file'), { code: 'EISDIR' });
  facts.mtimeMs = st.mtimeMs;
  const read: ReadAt = (buf, len, pos) => {
    const got = readSync(fd, buf, 0, len, pos);
    opts.onRead?.(got);
    return got;
  };
  const window = opts.window ?? WINDOW;
  const got = read(scratch, FIRST_READ, 0);
  if (got < FIRST_READ) {
    // Read whole: every fact comes from these bytes.
    const data = scratch.subarray(0, got);
    facts.bytes = got;
    facts.chars = countChars(data) - bomAt0(data);
    if (data.includes(0)) facts.error = 'binary content (NUL bytes): not a text artifact';
    examine(facts, bufferReader(data), got, marker, window);
    if (!facts.marker) facts.fenceOpen = fenceOpen(data);
    return;
  }
  const size = Math.max(st.size, got);
  facts.bytes = size;
  const head = scratch.subarray(0, got);
  if (head.includes(0)) facts.error = 'binary content (NUL bytes): not a text artifact';
  const count = countFrom(read, got, size, countChars(head) - bomAt0(head), opts.need ?? 0);
  facts.chars = count.chars;
  if (count.atLeast) facts.charsAtLeast = true;
  examine(facts, read, size, marker, window);
  // Fences can only be counted over the whole file; the tail alone would see a closed
  // block that starts before it as an open one.
  facts.fenceOpen = false;
}

export function readFileFacts(abs: string, rel: string, marker: string | null, opts: FactsOptions = {}): FileFacts {
  const facts = blank(rel);
  const confine = opts.confine ?? new Confine(rootOf(abs, rel), opts.outside);
  let fd: number;
  try {
    // O_NONBLOCK: a FIFO under an artifact's name must not hang the scan (no effect on files).
    const opened = confine.open(abs);
    if (typeof opened !== 'number') return { ...facts, exists: true, unreadable: true, error: opened.refused };
    fd = opened;
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
    readOpen(fd, facts, marker, opts);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { ...blank(rel) };
    facts.error = code === 'EISDIR' ? 'not a regular file' : `cannot read: ${code ?? String(err)}`;
    facts.unreadable = true;
  } finally {
    closeSync(fd);
  }
  return facts;
}
