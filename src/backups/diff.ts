import type { FileHandle } from 'node:fs/promises';
import { sanitizeLine } from '../text/sanitize.js';
import { BackupError, explain, inside, openRegular } from './fs.js';
import { editScript, type EditOp } from '../text/edit-script.js';

// "Backup or current?" is a human decision (docs/domain.md, Half-products, human strategy), so the
// operator sees a small unified-style line diff. Myers' O(ND) algorithm on lines, bounded in
// input size, edit distance and output lines: a huge or wildly different pair gets a summary
// instead of freezing the control room.

/**
 * How the two files were compared. `lines`: an exact line diff; `approximate`: too different
 * for one, so the counts are lines present on one side only; `too_large`, `binary`,
 * `not_regular`: no line counts at all (`added`/`removed` are 0 and mean nothing, `hunks`
 * is one note saying why).
 */
export type DiffKind = 'identical' | 'lines' | 'approximate' | 'too_large' | 'binary' | 'not_regular';

export interface BackupDiff {
  kind: DiffKind;
  added: number;
  removed: number;
  /** `@@ -a,b +c,d @@` headers and ` `/`-`/`+` lines, at most ~MAX_OUT lines, sanitized. */
  hunks: string[];
  identical: boolean;
  /** True when the diff was too large to compute line by line and `hunks` is a summary. */
  summary: boolean;
}

const MAX_LINES = 20_000;
const MAX_EDITS = 1_000;
const MAX_OUT = 200;
const CONTEXT = 3;
const MAX_BYTES = 8 * 1024 * 1024;

type Op = EditOp;

function render(ops: Op[], a: string[], b: string[]): string[] {
  const out: string[] = [];
  let i = 0;
  let prevEnd = 0;
  while (i < ops.length) {
    if (ops[i].kind === ' ') {
      i++;
      continue;
    }
    // Grow a hunk: changes plus CONTEXT lines around them, merging nearby changes.
    const start = Math.max(prevEnd, i - CONTEXT);
    let end = i;
    let quiet = 0;
    while (end < ops.length && quiet <= 2 * CONTEXT) {
      quiet = ops[end].kind === ' ' ? quiet + 1 : 0;
      end++;
    }
    end = Math.min(ops.length, end - Math.max(0, quiet - CONTEXT));
    const slice = ops.slice(start, end);
    const aStart = slice.find((o) => o.kind !== '+')?.a ?? slice[0].a;
    const bStart = slice.find((o) => o.kind !== '-')?.b ?? slice[0].b;
    const aLen = slice.filter((o) => o.kind !== '+').length;
    const bLen = slice.filter((o) => o.kind !== '-').length;
    out.push(`@@ -${aStart + (aLen ? 1 : 0)},${aLen} +${bStart + (bLen ? 1 : 0)},${bLen} @@`);
    for (const o of slice) out.push(`${o.kind}${sanitizeLine(o.kind === '+' ? b[o.b] : a[o.a])}`);
    i = prevEnd = end;
  }
  return out;
}

const splitLines = (text: string): string[] => {
  const lines = text.split('\n').map((l) => l.replace(/\r$/, ''));
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
};

/** Pure line diff of two texts (exported for tests and for previews of staged writes). */
export function diffLines(before: string, after: string): BackupDiff {
  if (before === after) return { kind: 'identical', added: 0, removed: 0, hunks: [], identical: true, summary: false };
  const a = splitLines(before);
  const b = splitLines(after);
  const ops = a.length + b.length <= MAX_LINES ? editScript(a, b, MAX_EDITS) : null;
  if (!ops) {
    // Too big to diff interactively: count lines present on one side only (as a multiset).
    const counts = new Map<string, number>();
    for (const l of a) counts.set(l, (counts.get(l) ?? 0) + 1);
    let added = 0;
    for (const l of b) {
      const c = counts.get(l) ?? 0;
      if (c > 0) counts.set(l, c - 1);
      else added++;
    }
    const removed = [...counts.values()].reduce((s, c) => s + c, 0);
    const note = `files differ too much for a line diff (${a.length} → ${b.length} lines); about +${added} -${removed} lines; compare them in an editor`;
    return { kind: 'approximate', added, removed, hunks: [note], identical: false, summary: true };
  }
  const added = ops.filter((o) => o.kind === '+').length;
  const removed = ops.filter((o) => o.kind === '-').length;
  let hunks = render(ops, a, b);
  if (hunks.length > MAX_OUT) hunks = [...hunks.slice(0, MAX_OUT), `… ${hunks.length - MAX_OUT} more diff lines not shown`];
  // Texts can differ only in line endings or a final newline: say so rather than show nothing.
  if (hunks.length === 0) hunks = ['files differ only in line endings or the final newline'];
  return { kind: 'lines', added, removed, hunks, identical: false, summary: false };
}

/** Read at most `limit` bytes of an open file; null when it holds more (it may have grown). */
async function readBounded(fh: FileHandle, size: number, limit: number): Promise<Buffer | null> {
  if (size > limit) return null;
  let buf = Buffer.alloc(Math.min(limit + 1, size + 4096));
  let got = 0;
  for (;;) {
    if (got === buf.length) {
      if (got > limit) return null;
      const more = Buffer.alloc(Math.min(limit + 1, buf.length * 2));
      buf.copy(more);
      buf = more;
    }
    const { bytesRead } = await fh.read(buf, got, buf.length - got, got);
    if (bytesRead === 0) break;
    got += bytesRead;
  }
  return got > limit ? null : buf.subarray(0, got);
}

type Side = { kind: 'text'; buf: Buffer } | { kind: 'too_large'; size: number } | { kind: 'not_regular'; why: string };

const noted = (kind: DiffKind, note: string, identical = false): BackupDiff => ({ kind, added: 0, removed: 0, hunks: [note], identical, summary: true });

/**
 * Diff a backup (old, `-`) against the current file (new, `+`); a missing current file is
 * empty. Only regular files are read (no symlink is followed, no FIFO waited on); a file over
 * MAX_BYTES is never loaded, and one with a NUL byte is binary: both get a one-line note and
 * no line counts (`kind` says why), never a claim of `+0 -0`.
 */
export async function diffBackup(root: string, backupRel: string, currentRel: string): Promise<BackupDiff> {
  const read = async (rel: string, optional: boolean): Promise<Side> => {
    const abs = inside(root, rel);
    let opened: Awaited<ReturnType<typeof openRegular>>;
    try {
      opened = await openRegular(abs, rel);
    } catch (err) {
      if (optional && (err as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'text', buf: Buffer.alloc(0) };
      if (err instanceof BackupError && err.code === 'ENOTREG') return { kind: 'not_regular', why: err.message };
      throw explain('read', rel, err);
    }
    try {
      const buf = await readBounded(opened.fh, opened.st.size, MAX_BYTES);
      return buf ? { kind: 'text', buf } : { kind: 'too_large', size: opened.st.size };
    } catch (err) {
      throw explain('read', rel, err);
    } finally {
      await opened.fh.close();
    }
  };
  const [before, after] = await Promise.all([read(backupRel, false), read(currentRel, true)]);
  if (before.kind === 'not_regular' || after.kind === 'not_regular') {
    const why = before.kind === 'not_regular' ? before.why : after.kind === 'not_regular' ? after.why : '';
    return noted('not_regular', `not diffed: ${why}`);
  }
  const size = (x: Side): number => (x.kind === 'too_large' ? x.size : x.kind === 'text' ? x.buf.length : 0);
  if (before.kind === 'too_large' || after.kind === 'too_large') {
    return noted('too_large', `too large to diff here (${size(before)} vs ${size(after)} bytes); compare them in an editor`);
  }
  if (before.buf.equals(after.buf)) return { kind: 'identical', added: 0, removed: 0, hunks: [], identical: true, summary: false };
  // A NUL byte means binary (git's rule): a line diff of it is noise and raw control bytes.
  if (before.buf.includes(0) || after.buf.includes(0)) {
    const which = before.buf.includes(0) ? (after.buf.includes(0) ? 'both files' : 'the backup') : 'the current file';
    return noted('binary', `binary, not diffed (${which} ${which === 'both files' ? 'contain' : 'contains'} NUL bytes; ${size(before)} vs ${size(after)} bytes)`);
  }
  return diffLines(before.buf.toString('utf8'), after.buf.toString('utf8'));
}
