import { randomBytes } from 'node:crypto';
import { lstat, readdir, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fsyncDir } from '../fs/atomic-write.js';
import { assertInside } from '../fs/confine-path.js';
import { formatStamp, stampOf } from './stamp.js';
import { BackupError, copyExclusive, copyFromHandle, exists, explain, firstFree, inside, kindOf, linkOrCopy, notRegular, openRegular, toRel } from './fs.js';

// Backups you can trust (docs/domain.md, Half-products: "back up `file` to `file.bak.{timestamp}`
// and redo"). Used by the control room's back-up / redo / undo actions and by restore.
// Invariants: a backup is never overwritten and never deleted by checkroom (undo moves the
// one it just made back); every step is atomic, so a crash or a full disk leaves either
// the old state or the new one, never a half-copied file under a trusted name.

export { BackupError } from './fs.js';
export { diffBackup, diffLines } from './diff.js';
export type { BackupDiff, DiffKind } from './diff.js';

export interface BackupInfo {
  /** Workspace-relative path of the backup, '/'-separated. */
  path: string;
  bytes: number;
  mtimeMs: number;
  /** The text after `.bak.`: `20261128-140312`, `20261128-140312-1` or an epoch. */
  stamp: string;
  /** The stamp as epoch milliseconds, or null when it does not parse as a date. */
  stampMs: number | null;
}

const backupBase = (abs: string, now: Date): string => `${abs}.bak.${formatStamp(now)}`;

/**
 * Move `rel` to `rel.bak.<YYYYMMDD-HHMMSS>` (local time), adding `-1`, `-2`, … if that name
 * exists. The move is link-then-unlink: the original name disappears only after the backup
 * name is durable.
 */
export async function backupFile(root: string, rel: string, now: Date = new Date()): Promise<{ backup: string }> {
  const src = inside(root, rel);
  let dst: string;
  try {
    dst = await firstFree(backupBase(src, now), (c) => linkOrCopy(src, c, [root]));
  } catch (err) {
    throw explain('back up', rel, err);
  }
  try {
    await unlink(assertInside('unlink', src, [root]));
  } catch (err) {
    // The backup exists and so does the original: nothing is lost, but say so.
    throw explain('remove the original after backing it up to', toRel(root, dst!), err, false);
  }
  await fsyncDir(dirname(src));
  return { backup: toRel(root, dst) };
}

/** Same naming as backupFile, but the original stays: used before an in-place write. */
export async function copyBackup(root: string, rel: string, now: Date = new Date()): Promise<{ backup: string }> {
  const src = inside(root, rel);
  try {
    // A copy, not a hard link: an in-place write would change a linked backup too.
    const dst = await firstFree(backupBase(src, now), (c) => copyExclusive(src, c, [root]));
    await fsyncDir(dirname(src));
    return { backup: toRel(root, dst) };
  } catch (err) {
    throw explain('back up', rel, err);
  }
}

/** A name that looks like a backup of the file but is not a regular file, so it is no backup. */
export interface IgnoredBackup {
  /** Workspace-relative path, '/'-separated. */
  path: string;
  /** In words: `a symbolic link`, `a directory`, `a FIFO (named pipe)`, … */
  kind: string;
}

/**
 * Every backup of `rel` (`rel.bak.<stamp>`), newest first: by stamp, then counter, then
 * mtime. Only regular files count, by `lstat`: a symlink named like a backup could point
 * anywhere (outside the workspace too), a FIFO would hang whoever reads it, a directory
 * cannot be restored. Those come back in `ignored`, never read.
 */
export async function scanBackups(root: string, rel: string): Promise<{ backups: BackupInfo[]; ignored: IgnoredBackup[] }> {
  const abs = inside(root, rel);
  const dir = dirname(abs);
  const name = basename(abs);
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { backups: [], ignored: [] };
    throw explain('list backups of', rel, err);
  }
  const found: (BackupInfo & { seq: number })[] = [];
  const ignored: IgnoredBackup[] = [];
  for (const file of entries.sort()) {
    const stamp = stampOf(name, file);
    if (!stamp) continue;
    const st = await lstat(join(dir, file)).catch(() => null);
    if (!st) continue; // gone since readdir
    const path = toRel(root, join(dir, file));
    if (!st.isFile()) {
      ignored.push({ path, kind: kindOf(st) });
      continue;
    }
    found.push({ path, bytes: st.size, mtimeMs: st.mtimeMs, stamp: stamp.raw, stampMs: stamp.ms, seq: stamp.seq });
  }
  found.sort((a, b) => (b.stampMs ?? b.mtimeMs) - (a.stampMs ?? a.mtimeMs) || b.seq - a.seq || b.mtimeMs - a.mtimeMs);
  return { backups: found.map(({ seq: _seq, ...info }) => info), ignored };
}

/** The backups of `rel` (regular files only), newest first; see scanBackups. */
export async function listBackups(root: string, rel: string): Promise<BackupInfo[]> {
  return (await scanBackups(root, rel)).backups;
}

/** `drafts/ch03-draft.md.bak.20261128-140312-1` → `drafts/ch03-draft.md`. */
export function originalOf(backupRel: string): string {
  // `s`: a name may hold a CR or U+2028, which `.` alone does not match (the torture tests plant both).
  const m = /^(.*)\.bak\.([^/]+)$/s.exec(backupRel);
  if (!m || !stampOf(basename(m[1]), `${basename(m[1])}.bak.${m[2]}`)) {
    throw new BackupError(`${backupRel} is not a backup name (expected <file>.bak.<YYYYMMDD-HHMMSS> or <file>.bak.<epoch>)`, backupRel, 'EINVAL');
  }
  return m[1];
}

/**
 * Copy a backup back over its original. The current file (if any) first gets its own
 * backup, so both versions survive; the backup itself is left in place. Order matters for a
 * full disk: the restored copy is staged first, so a failure changes nothing.
 */
export async function restoreBackup(
  root: string,
  backupRel: string,
  now: Date = new Date(),
): Promise<{ restored: string; currentBackedUpTo: string | null }> {
  const rel = originalOf(backupRel);
  const bak = inside(root, backupRel);
  const dst = inside(root, rel);
  // Only a regular file is restored, read through the handle that was checked: never a
  // symlink's target (which may be outside the workspace), never a FIFO (which would block).
  let opened: Awaited<ReturnType<typeof openRegular>>;
  try {
    opened = await openRegular(bak, backupRel);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new BackupError(`cannot restore ${backupRel}: it does not exist; list the backups again`, backupRel, 'ENOENT');
    if (err instanceof BackupError) {
      const what = err.message.startsWith(`${backupRel} is `) ? `it${err.message.slice(backupRel.length)}` : err.message;
      throw notRegular(`cannot restore ${backupRel}: ${what}; only regular files are backups (nothing was changed)`, backupRel);
    }
    throw explain('restore', backupRel, err);
  }
  // The current file gets a second name before it is replaced; that only makes sense for a
  // regular file (a link to a symlink would be a "backup" nobody lists).
  const cur = await lstat(dst).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return null;
    throw explain('restore', backupRel, err);
  });
  if (cur && !cur.isFile()) {
    await opened.fh.close();
    throw notRegular(`cannot restore ${backupRel}: ${rel} is ${kindOf(cur)}, not a regular file; move it away first (nothing was changed)`, rel);
  }
  const staged = join(dirname(dst), `.${basename(dst)}.restore.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await copyFromHandle(opened.fh, opened.st.size, opened.st.mode, staged, [root]);
  } catch (err) {
    throw explain('restore', backupRel, err);
  } finally {
    await opened.fh.close();
  }
  let currentBackedUpTo: string | null = null;
  try {
    if (cur) {
      // A second name for the current file; the rename below then swaps in the restored
      // copy atomically, so `rel` never goes missing, even for a moment.
      currentBackedUpTo = toRel(root, await firstFree(backupBase(dst, now), (c) => linkOrCopy(dst, c, [root])));
    }
    await rename(staged, assertInside('rename', dst, [root]));
  } catch (err) {
    await Promise.resolve()
      .then(() => unlink(assertInside('unlink', staged, [root])))
      .catch(() => {});
    throw explain('restore', backupRel, err);
  }
  await fsyncDir(dirname(dst));
  return { restored: rel, currentBackedUpTo };
}

/**
 * Undo the control room's last backup: move `backupRel` back to `originalRel`, only if
 * nothing has been written there since (otherwise that newer file would be lost).
 */
export async function undoBackup(root: string, backupRel: string, originalRel: string): Promise<{ restored: string }> {
  const bak = inside(root, backupRel);
  const dst = inside(root, originalRel);
  const refuse = () =>
    new BackupError(
      `cannot undo: ${originalRel} exists again (written after the backup); back it up first, or use restore, which keeps both`,
      originalRel,
      'EEXIST',
    );
  if (await exists(dst)) throw refuse();
  try {
    await linkOrCopy(bak, dst, [root]);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw refuse();
    throw explain('undo the backup', backupRel, err);
  }
  await unlink(assertInside('unlink', bak, [root]));
  await fsyncDir(dirname(dst));
  return { restored: originalRel };
}
