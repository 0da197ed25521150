import { lstatSync, mkdirSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import type { FileFacts, PipelineDef } from '../types.js';
import { writeFileAtomic } from '../fs/atomic-write.js';
import { readWholeSync } from '../fs/read-capped.js';
import { decodeFactsCache, encodeFactsCache, FACTS_CACHE_VERSION, factsAt, FactsCacheWriter, sameKey, type FactsCacheData, type StatKey } from './facts-cache.js';
import { EXACT_COUNT_BYTES, FIRST_READ } from './file-facts.js';
import type { Confine } from './confine.js';
import { needOf } from './scan.js';
import { assertInside } from '../fs/confine-path.js';

// The facts cache in use: `.checkroom/facts-cache` is loaded once, each
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
export const RACY_SLACK_MS = 2_000;
const CACHE_MAX_BYTES = 512 * 1024 * 1024;

/** How a read uses `.checkroom/facts-cache`; without it, every artifact is read. */
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

function readCache(path: string): { buf: Buffer; mtimeMs: number } | null {
  return readWholeSync(path, CACHE_MAX_BYTES); // none yet: the first scan builds it
}

export interface FactsCacheStats {
  /** Entries trusted without a read. */
  hits: number;
  /** Artifacts read (new, changed, racy, or not cacheable). */
  reads: number;
  /** Why the file on disk was not used at all: null when it was (or when there was none). */
  rejected: string | null;
}

// Non-bigint stats on purpose: BigInt stats cost a BigInt per field per file, and a double
// keeps a timestamp to well under a microsecond, far finer than the racy window below.
const NO_THROW = { throwIfNoEntry: false } as const; // one options object, not one per file
const lstatOf = (abs: string): Stats | undefined => {
  try {
    return lstatSync(abs, NO_THROW);
  } catch {
    return undefined; // EACCES on a directory and the like: the read says what it is
  }
};

export class FactsCache {
  private readonly old: FactsCacheData | null;
  private index: Map<string, number> | null = null;
  private last = -1;
  /** The next cache, in scan order: an old entry's index (still valid), or a fresh read. */
  private readonly next: (number | { rel: string; key: StatKey; facts: FileFacts })[] = [];
  private readonly racyFrom: number;
  private readonly startedMs = Date.now();
  private changed = false;
  /** Whether every entry so far was an old entry, in the old order: then the facts of this scan ARE the old cache's. */
  private inOrder = true;
  /** The loaded file's header line (version, checksum, length): names exactly the entries it holds. */
  private loadedId: string | null = null;
  readonly stats: FactsCacheStats = { hits: 0, reads: 0, rejected: null };

  private constructor(
    private readonly root: string,
    private readonly sig: string,
    private readonly write: boolean,
    loaded: { data: FactsCacheData; mtimeMs: number } | null,
  ) {
    this.old = loaded?.data ?? null;
    // The scan's start on the file system's clock: the cache file's mtime is that clock at
    // the write; the process clock says how long the scan took before it.
    this.racyFrom = loaded ? loaded.mtimeMs - Math.ceil(loaded.data.writtenMs - loaded.data.startedMs) - RACY_SLACK_MS : 0;
  }

  /** The cache of `root` for `sig`; an absent, foreign, truncated or corrupt file gives an empty one (rebuilt on save). */
  static open(root: string, sig: string, opts: { write: boolean }): FactsCache {
    const raw = readCache(join(root, FACTS_CACHE_FILE));
    const data = raw ? decodeFactsCache(raw.buf, sig) : null;
    const c = new FactsCache(root, sig, opts.write, data && raw ? { data, mtimeMs: raw.mtimeMs } : null);
    if (data && raw) c.loadedId = raw.buf.subarray(0, raw.buf.indexOf(0x0a)).toString('latin1');
    if (raw && !data) {
      c.stats.rejected = 'not a facts cache of this version, workspace and pipeline, or not whole';
      c.changed = true;
    }
    return c;
  }

  private racy(k: StatKey): boolean {
    return k.mtimeMs >= this.racyFrom || k.ctimeMs >= this.racyFrom;
  }

  /** Where `rel` is in the old cache: the next entry in scan order (a settled workspace), else looked up. */
  private find(rel: string): number {
    const old = this.old;
    if (!old) return -1;
    if (old.paths[this.last + 1] === rel) return ++this.last;
    this.index ??= new Map(old.paths.map((p, i) => [p, i]));
    const i = this.index.get(rel) ?? -1;
    if (i >= 0) this.last = i;
    return i;
  }

  /** The facts of `rel` (at `abs`): the cached ones when its stat key is unchanged and settled, else `read(abs, rel)`. */
  facts(rel: string, abs: string, confine: Confine, read: (abs: string, rel: string) => FileFacts): FileFacts {
    const r = this.factsOrEntry(rel, abs, confine, read);
    return typeof r === 'number' ? factsAt(this.old!, r) : r;
  }

  /** Old entry `i`'s facts (an index factsOrEntry gave). */
  cached(i: number): FileFacts {
    return factsAt(this.old!, i);
  }

  /**
   * Like facts(), but a trusted entry comes back as its index in the old cache, made into
   * facts only when asked (cached): an answer the status cache gives never needs them, and
   * 50k fact objects were most of a warm read's garbage (warm goal).
   */
  factsOrEntry(rel: string, abs: string, confine: Confine, read: (abs: string, rel: string) => FileFacts): FileFacts | number {
    const st = lstatOf(abs);
    if (!st || !st.isFile()) {
      this.stats.reads++;
      return read(abs, rel);
    }
    const i = this.find(rel);
    if (i >= 0 && sameKey(this.old!, i, st) && !this.racy(st) && !confine.escapes(abs)) {
      this.stats.hits++;
      if (i !== this.next.length) this.inOrder = false;
      this.next.push(i);
      return i;
    }
    this.stats.reads++;
    const facts = read(abs, rel);
    this.changed = true;
    if (facts.exists) this.next.push({ rel, key: { dev: st.dev, ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs }, facts });
    return facts;
  }

  /**
   * The loaded cache's identity when this scan's facts are exactly its entries, every one
   * trusted, in its order, none read, none left out; null otherwise (the status
   * cache keys a derived answer by it, so a derived answer is reused only for the same facts).
   */
  unchangedId(): string | null {
    const old = this.old;
    return old && this.loadedId && this.stats.reads === 0 && this.inOrder && this.next.length === old.paths.length ? this.loadedId : null;
  }

  /** Write the cache when it changed and this caller may write; never throws. */
  async save(): Promise<void> {
    if (!this.write || this.next.length === 0 || (!this.changed && this.next.length === (this.old?.paths.length ?? 0))) return;
    const dir = join(this.root, '.checkroom');
    try {
      mkdirSync(assertInside('mkdir', dir, [this.root])); // not recursive: never recreate a workspace that was moved away
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return;
    }
    const w = new FactsCacheWriter();
    for (const e of this.next) {
      if (typeof e === 'number') w.copy(this.old!, e);
      else w.add(e.rel, e.key, e.facts);
    }
    try {
      await writeFileAtomic(join(this.root, FACTS_CACHE_FILE), encodeFactsCache(w.data(this.sig, this.startedMs, Date.now())), [this.root]);
    } catch {
      // read-only file system, no permission, full disk: the next scan reads the files again
    }
  }
}
