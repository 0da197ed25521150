import { closeSync, fstatSync, lstatSync, mkdirSync, openSync, readSync, type BigIntStats } from 'node:fs';
import { join } from 'node:path';
import type { FileFacts, PipelineDef } from '../types.js';
import { writeFileAtomic } from '../fs/atomic-write.js';
import { decodeFactsCache, encodeFactsCache, FACTS_CACHE_VERSION, keyText, statKey, type FactsCacheData, type StatKey } from './facts-cache.js';
import { EXACT_COUNT_BYTES, FIRST_READ } from './file-facts.js';
import type { Confine } from './confine.js';
import { needOf } from './scan.js';

// The facts cache in use (issue 10 item 1): `.checkroom/facts-cache` is loaded once, each
// artifact is validated with one lstat, and only what changed is read. What the cache can
// never do is make a verdict differ from a full read:
// - a key is taken BEFORE the file is read, so a write during the read leaves a key older
//   than the facts, and the next scan reads the file again;
// - "racily clean" (git's word): a file changed within one timestamp tick of its read keeps
//   its key. An entry whose mtime or ctime is not older than the scan that produced it (on
//   the file system's own clock: the cache file's mtime less the scan's duration, less the
//   coarsest timestamp granularity we know of) is re-read, every time, until a later scan
//   has seen it settled;
// - symlinks, non-regular files and anything in a directory that now resolves out of the
//   workspace are read every time (the confinement decides, not the cache).
// Written only by a caller allowed to write (a plain `status`, never --readonly or
// --no-cache), into `.checkroom/` of a workspace that has artifacts on disk; every failure
// to write is silent: the cache is only an optimisation.

export const FACTS_CACHE_FILE = join('.checkroom', 'facts-cache');
/** FAT keeps mtimes to 2 s, ext3 and HFS+ to 1 s: anything this close to the scan is racy. */
export const RACY_SLACK_NS = 2_000_000_000n;
const CACHE_MAX_BYTES = 512 * 1024 * 1024;

type Entry = { key: string; facts: FileFacts };

/** How a read uses `.checkroom/facts-cache` (issue 10 item 1); without it, every artifact is read. */
export interface CacheUse {
  /** Whether this caller may write the cache back (a plain `status`; never --readonly). */
  write: boolean;
}

/** What the facts of `pipeline`'s artifacts depend on besides the files: a cache for anything else is foreign. */
export const factsSignature = (root: string, pipeline: PipelineDef): string =>
  JSON.stringify([
    FACTS_CACHE_VERSION,
    root,
    FIRST_READ,
    EXACT_COUNT_BYTES,
    pipeline.outsideRoots ?? [],
    pipeline.steps.filter((s) => s.kind === 'file').map((s) => [s.path, s.marker, needOf(s)]),
  ]);

function readCache(path: string): { buf: Buffer; mtimeNs: bigint } | null {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return null; // none yet: the first scan builds it
  }
  try {
    const st = fstatSync(fd, { bigint: true });
    if (!st.isFile() || st.size > BigInt(CACHE_MAX_BYTES)) return null;
    const buf = Buffer.allocUnsafe(Number(st.size));
    let off = 0;
    while (off < buf.length) {
      const got = readSync(fd, buf, off, buf.length - off, off);
      if (got <= 0) break;
      off += got;
    }
    return { buf: buf.subarray(0, off), mtimeNs: st.mtimeNs };
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

export interface FactsCacheStats {
  /** Entries trusted without a read. */
  hits: number;
  /** Artifacts read (new, changed, racy, or not cacheable). */
  reads: number;
  /** Why the file on disk was not used at all: null when it was (or when there was none). */
  rejected: string | null;
}

export class FactsCache {
  private readonly old: Map<string, Entry>;
  private readonly fresh = new Map<string, Entry>();
  private readonly racyFrom: bigint;
  private readonly startedMs = Date.now();
  private changed = false;
  readonly stats: FactsCacheStats = { hits: 0, reads: 0, rejected: null };

  private constructor(
    private readonly root: string,
    private readonly sig: string,
    private readonly write: boolean,
    loaded: { data: FactsCacheData; mtimeNs: bigint } | null,
  ) {
    this.old = loaded?.data.entries ?? new Map();
    // The scan's start on the file system's clock: the cache file's mtime is that clock at
    // the write; the process clock says how long the scan took before it.
    const took = loaded ? BigInt(Math.ceil(loaded.data.writtenMs - loaded.data.startedMs)) * 1_000_000n : 0n;
    this.racyFrom = loaded ? loaded.mtimeNs - took - RACY_SLACK_NS : 0n;
  }

  /** The cache of `root` for `sig`; an absent, foreign, truncated or corrupt file gives an empty one (rebuilt on save). */
  static open(root: string, sig: string, opts: { write: boolean }): FactsCache {
    const raw = readCache(join(root, FACTS_CACHE_FILE));
    const data = raw ? decodeFactsCache(raw.buf, sig) : null;
    const c = new FactsCache(root, sig, opts.write, data && raw ? { data, mtimeNs: raw.mtimeNs } : null);
    if (raw && !data) {
      c.stats.rejected = 'not a facts cache of this version, workspace and pipeline, or not whole';
      c.changed = true;
    }
    return c;
  }

  private racy(k: StatKey): boolean {
    return k.mtimeNs >= this.racyFrom || k.ctimeNs >= this.racyFrom;
  }

  /** The facts of `rel` (at `abs`): the cached ones when its stat key is unchanged and settled, else `read()`. */
  facts(rel: string, abs: string, confine: Confine, read: () => FileFacts): FileFacts {
    let st: BigIntStats | undefined;
    try {
      st = lstatSync(abs, { bigint: true, throwIfNoEntry: false });
    } catch {
      st = undefined; // EACCES on a directory and the like: the read says what it is
    }
    if (!st || !st.isFile()) {
      this.stats.reads++;
      return read();
    }
    const stat = statKey(st);
    const key = keyText(stat);
    const e = this.old.get(rel);
    if (e && e.key === key && !this.racy(stat) && !confine.escapes(abs)) {
      this.stats.hits++;
      this.fresh.set(rel, e);
      return e.facts;
    }
    this.stats.reads++;
    const facts = read();
    this.changed = true;
    if (facts.exists) this.fresh.set(rel, { key, facts });
    return facts;
  }

  /** Write the cache when it changed and this caller may write; never throws. */
  async save(): Promise<void> {
    if (!this.write || this.fresh.size === 0 || (!this.changed && this.fresh.size === this.old.size)) return;
    const dir = join(this.root, '.checkroom');
    try {
      mkdirSync(dir); // not recursive: never recreate a workspace that was moved away
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return;
    }
    const data: FactsCacheData = { sig: this.sig, startedMs: this.startedMs, writtenMs: Date.now(), entries: this.fresh };
    try {
      await writeFileAtomic(join(this.root, FACTS_CACHE_FILE), encodeFactsCache(data));
    } catch {
      // read-only file system, no permission, full disk: the next scan reads the files again
    }
  }
}
