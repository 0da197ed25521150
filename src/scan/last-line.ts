// The last non-blank line of a file, found exactly by walking back from the end in windows
// ("a false done"). The old check looked only at a fixed tail window: a
// marker at the end of a prose line followed by a long blank run looked like a whole line
// (the window started at `<!--`), and a real marker followed by a blank run longer than the
// window was not seen at all. Here the window size changes how many reads it takes, never
// the answer; tests make it tiny to hit every boundary cheaply.

/** Reads up to `len` bytes at `pos` into `buf` (from 0); returns the count read. */
export type ReadAt = (buf: Buffer, len: number, pos: number) => number;

/** Bytes that make a line blank: space, tab, CR, LF, VT, FF (ASCII only, so never mid-character). */
export const isBlankByte = (b: number): boolean => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09 || b === 0x0b || b === 0x0c;

/** A last line longer than this (trimmed) is not a marker and is kept only by its end. */
export const LINE_MAX = 4 * 1024;
/**
 * Trailing blanks walked over before giving up. A file that ends in more blank bytes than
 * this is reported as having no last line in reach (`lost`): not done, and said so, rather
 * than reading an arbitrarily large file whole (bounded reads).
 */
export const BLANK_MAX = 16 * 1024 * 1024;
export const WINDOW = 8 * 1024;

export interface LastLine {
  /** Offset just past the last non-blank byte (0 when the file is blank). */
  end: number;
  /** Offset of the line's first non-blank byte. */
  start: number;
  /** The trimmed line as bytes, or null when it is longer than LINE_MAX. */
  text: Buffer | null;
  /** More than BLANK_MAX trailing blank bytes: the last line was not looked for further. */
  lost: boolean;
}

// Windows start small and double up to `window`: almost every artifact ends within a few
// hundred bytes of its last line, and the scan runs this for tens of thousands of files.
const FIRST_WINDOW = 256;
let shared = Buffer.allocUnsafe(WINDOW);

/** Walk back from `size` to the last non-blank line; reads at most BLANK_MAX + LINE_MAX + 2 windows. */
export function findLastLine(read: ReadAt, size: number, window = WINDOW, blankMax = BLANK_MAX): LastLine {
  if (shared.length < window) shared = Buffer.allocUnsafe(window);
  const buf = shared; // synchronous use only: one walk at a time
  let w = Math.min(window, FIRST_WINDOW);
  // 1. Skip the trailing blank run.
  let pos = size;
  let end = -1;
  while (pos > 0 && end < 0) {
    if (size - pos > blankMax) return { end: 0, start: 0, text: null, lost: true };
    const from = Math.max(0, pos - w);
    w = Math.min(window, w * 2);
    const got = read(buf, pos - from, from);
    if (got <= 0) break; // shrank under us: what was read is all there is
    for (let i = got - 1; i >= 0; i--) {
      if (!isBlankByte(buf[i])) {
        end = from + i + 1;
        break;
      }
    }
    pos = from;
  }
  if (end < 0) return { end: 0, start: 0, text: null, lost: false };
  // 2. Walk back to the line's start: the byte after the previous LF. Leading blanks are
  //    trimmed, so the line starts at the first non-blank byte after that LF.
  let start = end - 1;
  pos = end;
  let found = false;
  w = Math.min(window, FIRST_WINDOW);
  while (pos > 0 && !found) {
    const from = Math.max(0, pos - w);
    w = Math.min(window, w * 2);
    const got = read(buf, pos - from, from);
    if (got <= 0) break;
    for (let i = got - 1; i >= 0; i--) {
      const b = buf[i];
      if (b === 0x0a) {
        found = true;
        break;
      }
      if (!isBlankByte(b)) start = from + i;
    }
    pos = from;
    if (end - start > LINE_MAX) return { end, start, text: null, lost: false };
    if (end - pos > LINE_MAX + blankMax) break; // leading blanks past any bound: the line starts where its text does
  }
  const text = Buffer.allocUnsafe(end - start);
  const got = read(text, end - start, start);
  return { end, start, text: text.subarray(0, Math.max(0, got)), lost: false };
}

/** A ReadAt over bytes already in memory (a file read whole). */
export const bufferReader =
  (data: Uint8Array): ReadAt =>
  (buf, len, pos) => {
    const n = Math.max(0, Math.min(len, data.length - pos));
    buf.set(data.subarray(pos, pos + n), 0);
    return n;
  };
