import { mkdirSync } from 'node:fs';
import { open, readFile, type FileHandle } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';
import { journalPath, validateEvent, type JournalEvent } from '../run/journal/journal.js';
import { JOURNAL_MAX_LINE_BYTES, tailStart } from '../run/journal/read.js';
import { writeFileAtomic } from '../fs/atomic-write.js';
import { assertInside } from '../fs/confine-path.js';
import { CutFold, emptyCutState, type CutFoldState, type CutMap } from './cut-evidence.js';

// The cut evidence of a workspace, read from its journal at a bounded cost:
// the fold's state is kept in .checkroom/cut-cache with the journal's inode and the offset it
// was read to. The journal is append-only, so a status reads only the bytes appended since
// (none when its size is the cached one); a journal replaced (another inode) or shrunk is read
// again from the start (so is one whose bytes before the offset differ: another file on a
// reused inode), and a cold read takes at most its last CUT_READ_MAX bytes (a cell
// whose last launch is older than that is judged by its content, as before the journal was
// evidence). Like every cache here it is only an optimisation: a file not exactly what this
// version wrote is a miss, and a failure to write is silent.

export const CUT_CACHE_FILE = join('.checkroom', 'cut-cache');
const MAGIC = 'checkroom-cuts 2';
export const CUT_READ_MAX = 64 * 1024 * 1024;
const CHUNK = 1 << 20;
// Only these lines move the fold; the rest (agent facts, breakers, …) are not parsed.
const WANTED = ['"type":"launch"', '"type":"exit"', '"type":"reaped"', '"type":"decision"'];

/** The fold where it stopped: on disk (.checkroom/cut-cache) or held by a long-lived reader (the live model). */
export interface CutMemo {
  value: CacheFile | null;
}

interface CacheFile {
  magic: string;
  ino: number;
  offset: number;
  /** The bytes just before `offset`, base64: a journal replaced by another on a reused inode differs there. */
  seam: string;
  state: CutFoldState;
}

const SEAM = 64;

async function seamAt(fh: FileHandle, offset: number): Promise<string> {
  const from = Math.max(0, offset - SEAM);
  const buf = Buffer.alloc(offset - from);
  const { bytesRead } = await fh.read(buf, 0, buf.length, from);
  return buf.subarray(0, bytesRead).toString('base64');
}

async function loadCache(root: string): Promise<CacheFile | null> {
  try {
    const c = JSON.parse(await readFile(join(root, CUT_CACHE_FILE), 'utf8')) as Partial<CacheFile>;
    const ok = c.magic === MAGIC && typeof c.ino === 'number' && typeof c.offset === 'number' && typeof c.seam === 'string' && typeof c.state?.open === 'object' && c.state.open !== null && typeof c.state.cuts === 'object' && c.state.cuts !== null;
    return ok ? (c as CacheFile) : null;
  } catch {
    return null;
  }
}

const relTo =
  (root: string) =>
  (abs: string): string | null => {
    const r = relative(root, abs);
    return r === '' || r.startsWith('..') || isAbsolute(r) ? null : r.split(sep).join('/');
  };

function foldLine(fold: CutFold, line: string): void {
  if (!WANTED.some((w) => line.includes(w))) return;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return; // journal warnings are the journal reader's to give (journal-read.ts)
  }
  if (validateEvent(value) === null) fold.apply([value as JournalEvent]);
}

/** How a read may use the disk cache: `read` it (not with --no-cache), `write` it back (never with --readonly). */
export interface CutCacheUse {
  read: boolean;
  write: boolean;
}

/**
 * The cuts of the journal of `root`. `memo`: a reader that stays (the live model) keeps the
 * fold in memory instead of the disk cache, and reads only what the journal gained since.
 */
export async function readCuts(root: string, opts: CutCacheUse & { memo?: CutMemo }): Promise<CutMap> {
  let fh;
  try {
    fh = await open(journalPath(root), 'r');
  } catch {
    return new Map(); // no journal, no evidence (an unreadable one is the journal reader's warning)
  }
  try {
    const st = await fh.stat();
    const cached = opts.memo ? opts.memo.value : opts.read ? await loadCache(root) : null;
    const resume = cached && cached.ino === st.ino && cached.offset <= st.size && (await seamAt(fh, cached.offset)) === cached.seam ? cached : null;
    const fold = new CutFold(relTo(root), resume ? resume.state : emptyCutState());
    const start = resume ? resume.offset : await tailStart(fh, st.size, CUT_READ_MAX);
    if (resume && start === st.size) return fold.cuts();
    let pos = start;
    let done = start; // the offset after the last whole line folded
    let carry: Buffer = Buffer.alloc(0);
    let skipping = false;
    const buf = Buffer.alloc(CHUNK);
    while (pos < st.size) {
      const { bytesRead } = await fh.read(buf, 0, Math.min(CHUNK, st.size - pos), pos);
      if (bytesRead === 0) break;
      pos += bytesRead;
      const data = carry.length ? Buffer.concat([carry, buf.subarray(0, bytesRead)]) : buf.subarray(0, bytesRead);
      let from = 0;
      for (let nl = data.indexOf(0x0a); nl >= 0; nl = data.indexOf(0x0a, from)) {
        if (!skipping) foldLine(fold, data.toString('utf8', from, nl));
        skipping = false;
        from = nl + 1;
      }
      done = pos - (data.length - from);
      // An oversized "line" is not an event (journal-read.ts): not kept while it is skipped.
      if (data.length - from > JOURNAL_MAX_LINE_BYTES) {
        skipping = true;
        carry = Buffer.alloc(0);
      } else carry = Buffer.from(data.subarray(from));
    }
    const offset = skipping ? pos : done;
    const next: CacheFile = { magic: MAGIC, ino: st.ino, offset, seam: await seamAt(fh, offset), state: fold.state };
    if (opts.memo) opts.memo.value = next;
    else if (opts.write) await saveCache(root, next);
    return fold.cuts();
  } finally {
    await fh.close();
  }
}

async function saveCache(root: string, c: CacheFile): Promise<void> {
  try {
    mkdirSync(assertInside('mkdir', join(root, '.checkroom'), [root]));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return;
  }
  try {
    await writeFileAtomic(join(root, CUT_CACHE_FILE), JSON.stringify(c), [root]);
  } catch {
    // read-only file system, no permission, full disk: the next read folds again
  }
}
