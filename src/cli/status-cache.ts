import { mkdirSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { presetOf, type Sources } from '../pipeline/presets/index.js';
import type { CostLedger } from '../run/journal/costs.js';
import type { OperatorRun } from '../operator/types.js';
import { writeFileAtomic } from '../fs/atomic-write.js';
import { readWholeSync } from '../fs/read-capped.js';
import { STATUS_JSON_VERSION } from './json.js';
import { assertInside } from '../fs/confine-path.js';

// The last `status --json` answer (warm ≤ 1.0× grep): when the facts of every
// artifact are exactly the facts cache's entries (each one validated by its stat key and the
// racily-clean rule, none read, none new, none gone: cached-facts.ts unchangedId) and every
// other input is the same value as last time, the derived state is the one of the last run,
// so is its JSON: only `scannedAt` is new. Reconcile, plan and the JSON text (a third of a
// warm run at 50k) are then not done again. What the answer is a function of, and so what
// the key covers: the facts (by the facts cache's identity), everything else the read
// returned (config, checkpoint.md, units, the global evidence files, long-memory entries,
// the todo table, warnings) by value, the journal's spend and runs in flight by value, and the code that derives (its files' identity). Derivation reads no clock:
// `scannedAt` is the only field that changes with time. Like the facts cache it is only an
// optimisation: a file that is not exactly what this version wrote is a miss, and every
// failure to write is silent.

export const STATUS_CACHE_FILE = join('.checkroom', 'status-cache');
const MAGIC = 'checkroom-status 1';
const MAX_BYTES = 512 * 1024 * 1024;

/** The deriving code's identity: this build's file (a rebuild or an upgrade changes its size, mtime or inode), and its directory (new chunk names). */
const codeId = (): string => {
  try {
    const self = fileURLToPath(import.meta.url);
    const st = statSync(self);
    const dir = statSync(join(self, '..'));
    return `${self}:${st.size}:${st.mtimeMs}:${st.ino}:${dir.mtimeMs}:${dir.ino}`;
  } catch {
    return '';
  }
};

class Uncacheable extends Error {}

/** JSON that tells apart what JSON.stringify would merge: Maps, Sets, regexes, undefined, non-finite numbers; refuses what it cannot name. */
const exact = (_k: string, v: unknown): unknown => {
  if (v instanceof Map) return { $map: [...v] };
  if (v instanceof Set) return { $set: [...v] };
  if (v instanceof RegExp) return { $re: String(v) };
  if (v === undefined) return { $undef: 1 };
  if (typeof v === 'number' && !Number.isFinite(v)) return { $num: String(v) };
  if (typeof v === 'function' || typeof v === 'symbol' || typeof v === 'bigint') throw new Uncacheable();
  return v;
};

/** The key of the answer to `src` with `costs`, the journal's `runs` in flight and the forecast's other inputs (`foresight`); null when the facts are not exactly a facts cache's (then nothing is reused). */
export function statusKey(src: Sources, costs: CostLedger, runs: readonly OperatorRun[] = [], foresight: unknown = null): string | null {
  const factsId = src.scan.factsId;
  // A preset with state of its own says what of it keys the answer, or that nothing does.
  const keysOf = presetOf(src.config.preset).cacheKeys;
  const own = keysOf ? keysOf(src) : [];
  if (!factsId || own === null) return null;
  const code = codeId();
  if (!code) return null;
  // The files are named by the facts cache's identity (and not made: scan.files is made when
  // first read); scannedAt is the one field spliced in.
  const { artifacts, entries, entryFiles } = src.scan;
  const rest = { ...src, scan: { artifacts, entries, entryFiles }, ...(keysOf ? { own: undefined } : {}) };
  try {
    const h = createHash('sha256');
    h.update(JSON.stringify([MAGIC, STATUS_JSON_VERSION, code, factsId], exact));
    h.update(JSON.stringify(rest, exact));
    h.update(JSON.stringify(own, exact));
    h.update(JSON.stringify(costs, exact));
    // The runs in flight mark cells running and take them out of the plan.
    h.update(JSON.stringify(runs, exact));
    // The forecast's other inputs and the clock to the minute (cli/scan-foresight.ts, docs/foresight.md).
    h.update(JSON.stringify(foresight, exact));
    return h.digest('hex');
  } catch (err) {
    if (err instanceof Uncacheable) return null;
    throw err;
  }
}

const SCANNED_AT = '"scannedAt":"';
const ISO_LENGTH = 24; // 2026-12-01T12:00:00.000Z; years 0–9999

function readWhole(path: string): Buffer | null {
  return readWholeSync(path, MAX_BYTES)?.buf ?? null; // none yet: the first status writes it
}

/** A stored answer: its bytes, and where the ISO time of its `scannedAt` starts in them. */
export interface CachedStatus {
  body: Buffer;
  at: number;
}

const AT = Buffer.from(SCANNED_AT);

/** The compact answer stored under `key` in `root`; null on any mismatch. */
export function cachedStatus(root: string, key: string): CachedStatus | null {
  const buf = readWhole(join(root, STATUS_CACHE_FILE));
  if (!buf) return null;
  const nl = buf.indexOf(0x0a);
  const head = nl < 0 || nl > 200 ? null : /^checkroom-status 1 ([0-9a-f]{64}) (\d+) (\d+)$/.exec(buf.subarray(0, nl).toString('latin1'));
  if (!head || head[1] !== key) return null;
  const body = buf.subarray(nl + 1);
  const at = Number(head[3]);
  // Torn or appended to (the file is written atomically, so neither should happen).
  if (body.length !== Number(head[2]) || !body.subarray(at - AT.length, at).equals(AT) || body[at + ISO_LENGTH] !== 0x22) return null;
  return { body, at };
}

const CHUNK = 64 * 1024;

/** Writes `bytes` as strings of about CHUNK bytes, each cut before a UTF-8 lead byte (never inside a character). */
function writeBytes(bytes: Buffer, out: { write(s: string): void }): void {
  let from = 0;
  while (from < bytes.length) {
    let to = Math.min(bytes.length, from + CHUNK);
    while (to < bytes.length && (bytes[to] & 0xc0) === 0x80) to++;
    out.write(bytes.toString('utf8', from, to));
    from = to;
  }
}

/** The stored answer on `out`, with `scannedAt` (ms) as this read's; written in chunks, not decoded whole (peak RSS). */
export function writeCachedStatus(hit: CachedStatus, scannedAt: number, out: { write(s: string): void }): void {
  writeBytes(hit.body.subarray(0, hit.at), out);
  out.write(new Date(scannedAt).toISOString());
  writeBytes(hit.body.subarray(hit.at + ISO_LENGTH), out);
}

/** Keep the answer written as `parts` (a compact `status --json`) under `key`; never throws (an optimisation). */
export async function saveStatus(root: string, key: string, parts: Buffer[]): Promise<void> {
  // In the first part: writeJson writes the document's head, scannedAt among its first fields,
  // in its first chunk. The first occurrence is the document's own: inside a JSON string every
  // quote is escaped.
  const found = parts.length ? parts[0].indexOf(AT) : -1;
  const at = found + AT.length;
  if (found < 0 || parts[0][at + ISO_LENGTH] !== 0x22) return;
  const length = parts.reduce((n, p) => n + p.length, 0);
  try {
    mkdirSync(assertInside('mkdir', join(root, '.checkroom'), [root])); // not recursive: never recreate a workspace that was moved away
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return;
  }
  try {
    await writeFileAtomic(join(root, STATUS_CACHE_FILE), [Buffer.from(`${MAGIC} ${key} ${length} ${at}\n`), ...parts], [root]);
  } catch {
    // read-only file system, no permission, full disk: the next status derives again
  }
}
