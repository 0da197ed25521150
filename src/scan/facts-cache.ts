import { crc32 } from 'node:zlib';
import type { BigIntStats } from 'node:fs';
import type { FileFacts } from '../types.js';

// The facts cache's format (issue 10 item 1), like git's index: per artifact its stat key
// (dev, inode, size, mtime and ctime in ns) and the FileFacts a verdict needs. Pure: bytes
// in, entries out, or null for anything not exactly what this version wrote — a foreign
// version, another workspace or pipeline, a checksum or length that does not match. A cache
// that is not trusted is rebuilt, never repaired: it is only an optimisation.
//
// Layout: one header line `checkroom-facts <version> <crc32 hex> <body bytes>\n`, then the
// body, a JSON object. ctime is in the key because it cannot be set from user space: a
// same-size rewrite whose mtime was put back with utimes still changes it.

export const FACTS_CACHE_VERSION = 1;
const MAGIC = 'checkroom-facts';

/** The stat key of one artifact: any change to the file changes at least one of these. */
export interface StatKey {
  dev: bigint;
  ino: bigint;
  size: bigint;
  mtimeNs: bigint;
  ctimeNs: bigint;
}

export interface FactsCacheData {
  /** What the facts depend on besides the file: the workspace root, steps, markers, thresholds, outside_roots. */
  sig: string;
  /** Process clock (ms) when the scan that produced these entries started, and when the cache was written. */
  startedMs: number;
  writtenMs: number;
  /** Keyed by workspace-relative path; `key` is keyText of the stat the facts were read under. */
  entries: Map<string, { key: string; facts: FileFacts }>;
}

export const statKey = (st: BigIntStats): StatKey => ({ dev: st.dev, ino: st.ino, size: st.size, mtimeNs: st.mtimeNs, ctimeNs: st.ctimeNs });

/** The key as one string: compared as text, loading 50k entries parses no numbers (issue 10: load time). */
export const keyText = (k: StatKey): string => `${k.dev}:${k.ino}:${k.size}:${k.mtimeNs}:${k.ctimeNs}`;

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

type Row = [string, string, number, number, number, number, string?, string?, string?, string?];

const row = (rel: string, key: string, f: FileFacts): Row => {
  const flags = (f.marker ? F_MARKER : 0) | (f.markerNotLast ? F_NOT_LAST : 0) | (f.fenceOpen ? F_FENCE : 0) | (f.unreadable ? F_UNREADABLE : 0) | (f.charsAtLeast ? F_AT_LEAST : 0);
  const r: Row = [rel, key, f.bytes, f.chars, flags, f.mtimeMs];
  if (f.tail || f.error || f.markerShape) r.push(triageTail(f.tail), f.error ?? '', f.markerShape?.shape ?? '', f.markerShape?.expected ?? '');
  return r;
};

const SHAPES = new Set(['other', 'inline', 'case', 'bare']);

const KEY = /^\d+:\d+:\d+:\d+:\d+$/;

const unrow = (r: unknown): [string, { key: string; facts: FileFacts }] | null => {
  if (!Array.isArray(r) || r.length < 6 || typeof r[0] !== 'string') return null;
  const [rel, key, bytes, chars, flags, mtimeMs, tail = '', error = '', shape = '', expected = ''] = r as Row;
  if (typeof bytes !== 'number' || typeof chars !== 'number' || typeof flags !== 'number' || typeof mtimeMs !== 'number') return null;
  if (typeof key !== 'string' || !KEY.test(key)) return null;
  if (typeof tail !== 'string' || typeof error !== 'string' || (shape !== '' && !SHAPES.has(shape))) return null;
  const facts: FileFacts = { path: rel, exists: true, bytes, chars, marker: (flags & F_MARKER) !== 0, markerNotLast: (flags & F_NOT_LAST) !== 0, mtimeMs, tail, fenceOpen: (flags & F_FENCE) !== 0 };
  if (error) facts.error = error;
  if (flags & F_UNREADABLE) facts.unreadable = true;
  if (flags & F_AT_LEAST) facts.charsAtLeast = true;
  if (shape) facts.markerShape = { shape: shape as 'other', expected: String(expected) };
  return [rel, { key, facts }];
};

export function encodeFactsCache(d: FactsCacheData): Buffer {
  const rows: Row[] = [];
  for (const [rel, e] of d.entries) rows.push(row(rel, e.key, e.facts));
  const body = Buffer.from(JSON.stringify({ sig: d.sig, startedMs: d.startedMs, writtenMs: d.writtenMs, entries: rows }));
  const head = `${MAGIC} ${FACTS_CACHE_VERSION} ${crc32(body).toString(16).padStart(8, '0')} ${body.length}\n`;
  return Buffer.concat([Buffer.from(head), body]);
}

/** The cache in `buf` when it is whole, of this version and for `sig`; null otherwise. */
export function decodeFactsCache(buf: Buffer, sig: string): FactsCacheData | null {
  const nl = buf.indexOf(0x0a);
  if (nl < 0 || nl > 80) return null;
  const head = /^checkroom-facts (\d+) ([0-9a-f]{8}) (\d+)$/.exec(buf.subarray(0, nl).toString('latin1'));
  if (!head || Number(head[1]) !== FACTS_CACHE_VERSION) return null;
  const body = buf.subarray(nl + 1);
  // Truncated, appended to, or torn by a writer that did not write atomically.
  if (body.length !== Number(head[3]) || crc32(body) !== parseInt(head[2], 16)) return null;
  let j: { sig?: unknown; startedMs?: unknown; writtenMs?: unknown; entries?: unknown };
  try {
    j = JSON.parse(body.toString('utf8'));
  } catch {
    return null;
  }
  if (j.sig !== sig || typeof j.startedMs !== 'number' || typeof j.writtenMs !== 'number' || !Array.isArray(j.entries)) return null;
  if (j.writtenMs < j.startedMs) return null;
  const entries = new Map<string, { key: string; facts: FileFacts }>();
  for (const r of j.entries) {
    const e = unrow(r);
    if (!e) return null;
    entries.set(e[0], e[1]);
  }
  return { sig, startedMs: j.startedMs, writtenMs: j.writtenMs, entries };
}
