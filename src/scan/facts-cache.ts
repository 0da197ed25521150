import { crc32 } from 'node:zlib';
import { endianness } from 'node:os';
import type { FileFacts } from '../types.js';

// The facts cache's format, like git's index: per artifact its stat key
// (dev, inode, size, mtime and ctime) and the FileFacts a verdict needs. Pure: bytes in,
// columns out, or null for anything not exactly what this version wrote — a foreign
// version, another workspace or pipeline, a checksum or length that does not match. A cache
// that is not trusted is rebuilt, never repaired: it is only an optimisation.
//
// Layout: one header line `checkroom-facts <version> <crc32 hex> <body bytes>\n`, then the
// body: a JSON line (signature, times, count, the few entries' text fields), the paths
// joined by NUL, a newline, and one float64 row per entry (COLS numbers, this machine's byte
// order). Columns, not objects: at 50k entries, loading one row object per entry and
// comparing key strings was a third of a warm `status` (the cache load). ctime is
// in the key because it cannot be set from user space: a same-size rewrite whose mtime was
// put back with utimes still changes it.

export const FACTS_CACHE_VERSION = 2;
const MAGIC = 'checkroom-facts';

/** Numbers per entry: the stat key (dev, ino, size, mtimeMs, ctimeMs), then bytes, chars, flags, the facts' mtimeMs. */
export const COLS = 9;
const C_BYTES = 5;
const C_CHARS = 6;
const C_FLAGS = 7;
const C_MTIME = 8;

/** The stat fields a key is made of (an fs.Stats has them all). */
export interface StatKey {
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
}

/** A FileFacts' text fields, kept only for the entries that have any (half-products, odd markers). */
export type Extra = [tail: string, error: string, shape: string, expected: string];

export interface FactsCacheData {
  /** What the facts depend on besides the file: the workspace root, steps, markers, thresholds, outside_roots. */
  sig: string;
  /** Process clock (ms) when the scan that produced these entries started, and when the cache was written. */
  startedMs: number;
  writtenMs: number;
  /** Workspace-relative paths; entry i's numbers are nums[i * COLS ... i * COLS + COLS). */
  paths: string[];
  nums: Float64Array;
  extras: Map<number, Extra>;
}

const F_MARKER = 1;
const F_NOT_LAST = 2;
const F_FENCE = 4;
const F_UNREADABLE = 8;
const F_AT_LEAST = 16;

/**
 * The part of a tail that triage reads: from the line break before the last non-blank line
 * to the end. triage.ts looks at nothing else (the last line, and the fence flag counted at
 * read time), so the verdict and its reason are the same as from the whole tail, and 50k
 * cached entries with 10% half-products do not carry 3 KB each.
 */
export function triageTail(tail: string): string {
  let end = tail.length;
  while (end > 0 && /\s/.test(tail[end - 1])) end--;
  const nl = tail.lastIndexOf('\n', end - 1);
  return nl <= 0 ? tail : tail.slice(nl);
}

/** Whether entry `i` was read under exactly this stat. */
export const sameKey = (d: FactsCacheData, i: number, st: StatKey): boolean => {
  const o = i * COLS;
  const n = d.nums;
  return n[o + 3] === st.mtimeMs && n[o + 2] === st.size && n[o + 1] === st.ino && n[o + 4] === st.ctimeMs && n[o] === st.dev;
};

/** Entry `i`'s facts, as the read that produced them returned them (with the tail triage reads). */
export function factsAt(d: FactsCacheData, i: number): FileFacts {
  const o = i * COLS;
  const n = d.nums;
  const flags = n[o + C_FLAGS];
  const x = d.extras.get(i);
  const facts: FileFacts = { path: d.paths[i], exists: true, bytes: n[o + C_BYTES], chars: n[o + C_CHARS], marker: (flags & F_MARKER) !== 0, markerNotLast: (flags & F_NOT_LAST) !== 0, mtimeMs: n[o + C_MTIME], tail: x?.[0] ?? '', fenceOpen: (flags & F_FENCE) !== 0 };
  if (x?.[1]) facts.error = x[1];
  if (flags & F_UNREADABLE) facts.unreadable = true;
  if (flags & F_AT_LEAST) facts.charsAtLeast = true;
  if (x?.[2]) facts.markerShape = { shape: x[2] as 'other', expected: x[3] };
  return facts;
}

/** Builds a FactsCacheData entry by entry: copied from an old one, or from a fresh read. */
export class FactsCacheWriter {
  private readonly paths: string[] = [];
  private nums = new Float64Array(COLS * 1024);
  private readonly extras = new Map<number, Extra>();

  private row(): number {
    const i = this.paths.length;
    if ((i + 1) * COLS > this.nums.length) {
      const grown = new Float64Array(this.nums.length * 2);
      grown.set(this.nums);
      this.nums = grown;
    }
    return i;
  }

  copy(from: FactsCacheData, j: number): void {
    const i = this.row();
    this.paths.push(from.paths[j]);
    this.nums.set(from.nums.subarray(j * COLS, j * COLS + COLS), i * COLS);
    const x = from.extras.get(j);
    if (x) this.extras.set(i, x);
  }

  add(rel: string, st: StatKey, f: FileFacts): void {
    const i = this.row();
    this.paths.push(rel);
    const flags = (f.marker ? F_MARKER : 0) | (f.markerNotLast ? F_NOT_LAST : 0) | (f.fenceOpen ? F_FENCE : 0) | (f.unreadable ? F_UNREADABLE : 0) | (f.charsAtLeast ? F_AT_LEAST : 0);
    this.nums.set([st.dev, st.ino, st.size, st.mtimeMs, st.ctimeMs, f.bytes, f.chars, flags, f.mtimeMs], i * COLS);
    if (f.tail || f.error || f.markerShape) this.extras.set(i, [triageTail(f.tail), f.error ?? '', f.markerShape?.shape ?? '', f.markerShape?.expected ?? '']);
  }

  get size(): number {
    return this.paths.length;
  }

  data(sig: string, startedMs: number, writtenMs: number): FactsCacheData {
    return { sig, startedMs, writtenMs, paths: this.paths, nums: this.nums.subarray(0, this.paths.length * COLS), extras: this.extras };
  }
}

export function encodeFactsCache(d: FactsCacheData): Buffer {
  const meta = JSON.stringify({ sig: d.sig, startedMs: d.startedMs, writtenMs: d.writtenMs, count: d.paths.length, endian: endianness(), extras: [...d.extras] });
  const paths = Buffer.from(d.paths.join('\0'));
  const nums = Buffer.from(d.nums.buffer, d.nums.byteOffset, d.paths.length * COLS * 8);
  const body = Buffer.concat([Buffer.from(`${meta}\n${paths.length}\n`), paths, Buffer.from('\n'), nums]);
  const head = `${MAGIC} ${FACTS_CACHE_VERSION} ${crc32(body).toString(16).padStart(8, '0')} ${body.length}\n`;
  return Buffer.concat([Buffer.from(head), body]);
}

const SHAPES = new Set(['', 'other', 'inline', 'case', 'bare']);

const extraOk = (e: unknown, count: number): e is [number, Extra] =>
  Array.isArray(e) && e.length === 2 && Number.isInteger(e[0]) && e[0] >= 0 && e[0] < count && Array.isArray(e[1]) && e[1].length === 4 && e[1].every((s) => typeof s === 'string') && SHAPES.has(e[1][2]);

/** The cache in `buf` when it is whole, of this version, byte order and for `sig`; null otherwise. */
export function decodeFactsCache(buf: Buffer, sig: string): FactsCacheData | null {
  const nl = buf.indexOf(0x0a);
  if (nl < 0 || nl > 80) return null;
  const head = /^checkroom-facts (\d+) ([0-9a-f]{8}) (\d+)$/.exec(buf.subarray(0, nl).toString('latin1'));
  if (!head || Number(head[1]) !== FACTS_CACHE_VERSION) return null;
  const body = buf.subarray(nl + 1);
  // Truncated, appended to, or torn by a writer that did not write atomically.
  if (body.length !== Number(head[3]) || crc32(body) !== parseInt(head[2], 16)) return null;
  const metaEnd = body.indexOf(0x0a);
  const lenEnd = metaEnd < 0 ? -1 : body.indexOf(0x0a, metaEnd + 1);
  if (lenEnd < 0) return null;
  let j: { sig?: unknown; startedMs?: unknown; writtenMs?: unknown; count?: unknown; endian?: unknown; extras?: unknown };
  try {
    j = JSON.parse(body.subarray(0, metaEnd).toString('utf8'));
  } catch {
    return null;
  }
  if (j.sig !== sig || j.endian !== endianness() || typeof j.startedMs !== 'number' || typeof j.writtenMs !== 'number' || j.writtenMs < j.startedMs) return null;
  const count = j.count;
  if (!Number.isInteger(count) || (count as number) < 0 || !Array.isArray(j.extras) || !j.extras.every((e) => extraOk(e, count as number))) return null;
  const pathBytes = Number(body.subarray(metaEnd + 1, lenEnd).toString('latin1'));
  const pathsAt = lenEnd + 1;
  const numsAt = pathsAt + pathBytes + 1;
  if (!Number.isInteger(pathBytes) || body[numsAt - 1] !== 0x0a || body.length !== numsAt + (count as number) * COLS * 8) return null;
  const paths = count === 0 ? [] : body.subarray(pathsAt, pathsAt + pathBytes).toString('utf8').split('\0');
  if (paths.length !== count) return null;
  // Copied, not viewed: a Float64Array needs an aligned offset, which the header does not give.
  const nums = new Float64Array((count as number) * COLS);
  Buffer.from(nums.buffer).set(body.subarray(numsAt));
  return { sig, startedMs: j.startedMs, writtenMs: j.writtenMs, paths, nums, extras: new Map(j.extras as [number, Extra][]) };
}
