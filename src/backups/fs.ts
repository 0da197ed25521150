import { constants, type Stats } from 'node:fs';
import { link, lstat, open, stat, unlink, type FileHandle } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { copyFileExclusive } from '../fs/atomic-copy.js';
import { assertInside } from '../fs/confine-path.js';

// The file-system primitives behind backups.ts. One rule drives all of them: a backup is
// never overwritten (docs/domain.md, Half-products: the backup is what lets a human undo a redo).
// `link()` is the atomic no-clobber move — it fails with EEXIST instead of replacing —
// and `copyFile(COPYFILE_EXCL)` is the no-clobber copy.

export class BackupError extends Error {
  constructor(
    message: string,
    readonly path: string,
    readonly code?: string,
  ) {
    super(message);
    this.name = 'BackupError';
  }
}

/** Turn an errno into a message that says what to do (STYLE.md idiom 8). */
export function explain(what: string, path: string, err: unknown, unchanged = true): BackupError {
  const e = err as NodeJS.ErrnoException;
  if (e instanceof BackupError) return e;
  const code = e?.code;
  const tail = unchanged ? ' (nothing was changed: the original file is intact)' : '';
  const hint =
    code === 'ENOSPC' || code === 'EDQUOT'
      ? `the disk is full; free some space and try again${tail}`
      : code === 'EACCES' || code === 'EPERM'
        ? `permission denied; check the owner and mode of ${path} and of its directory${tail}`
        : code === 'EROFS'
          ? `the file system is read-only${tail}`
          : code === 'ENOENT'
            ? `${path} does not exist`
            : (e?.message ?? String(err));
  return new BackupError(`cannot ${what} ${path}: ${hint}`, path, code);
}

/**
 * Resolve `rel` under `root`, refusing paths that escape the workspace: by `..` as written, or
 * through a symlinked directory on the way (through the one gate). Backups,
 * staged copies and restores are siblings of this path, so its directory's check covers them.
 */
export function inside(root: string, rel: string): string {
  const abs = resolve(root, rel);
  const r = relative(resolve(root), abs);
  if (r === '' || r.startsWith('..') || isAbsolute(r)) {
    throw new BackupError(`refusing ${rel}: backups only touch files inside the workspace ${root}`, rel, 'EINVAL');
  }
  try {
    return assertInside('rename', abs, [root]);
  } catch (err) {
    throw new BackupError((err as Error).message, rel, 'ECONFINE');
  }
}

export const toRel = (root: string, abs: string): string => relative(resolve(root), abs).split(sep).join('/');

export async function exists(abs: string): Promise<boolean> {
  try {
    await stat(abs);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
}

/** Errors meaning "this file system cannot hard-link", where a copy is the fallback. */
const NO_LINK = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV', 'EMLINK']);

/**
 * Copy `src` to `dst` only if `dst` does not exist, fsynced. The name appears only once the
 * copy is whole: a full disk or a kill -9 leaves no truncated backup behind (a temp file at
 * most, swept at start). Throws the raw errno error; EEXIST means the name is taken.
 */
export async function copyExclusive(src: string, dst: string, roots: readonly string[]): Promise<void> {
  // Whole or absent, even under kill -9 (src/fs/atomic-copy.ts).
  await copyFileExclusive(src, dst, roots);
}

/** Give `src` the additional name `dst` (or a copy, where links are unsupported); never clobbers. */
export async function linkOrCopy(src: string, dst: string, roots: readonly string[]): Promise<'link' | 'copy'> {
  try {
    await link(src, assertInside('link', dst, roots));
    return 'link';
  } catch (err) {
    if (!NO_LINK.has((err as NodeJS.ErrnoException).code ?? '')) throw err;
  }
  await copyExclusive(src, dst, roots);
  return 'copy';
}

/**
 * Try `base`, then `base-1`, `base-2`, … until `place(candidate)` does not fail with EEXIST.
 * The check and the creation are one system call, so two backups in the same second (or two
 * checkroom instances) cannot take the same name.
 */
export async function firstFree(base: string, place: (candidate: string) => Promise<unknown>): Promise<string> {
  for (let n = 0; n < 10_000; n++) {
    const candidate = n === 0 ? base : `${base}-${n}`;
    try {
      await place(candidate);
      return candidate;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  throw new BackupError(`cannot find a free backup name for ${base}: 10000 backups exist; move old ones away`, base, 'EEXIST');
}

/** What a non-regular file is, in words: `a symbolic link`, `a directory`, `a FIFO (named pipe)`, … */
export function kindOf(st: Stats): string {
  if (st.isSymbolicLink()) return 'a symbolic link';
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  return st.isFile() ? 'a regular file' : 'not a regular file';
}

/** The refusal for a backup (or current file) that is not a regular file; code ENOTREG. */
export const notRegular = (message: string, rel: string): BackupError => new BackupError(message, rel, 'ENOTREG');

// O_NOFOLLOW: a symlink fails (ELOOP) instead of reading its target, which may be outside the
// workspace. O_NONBLOCK: a FIFO opens at once instead of waiting forever for a writer.
const SAFE_READ = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * Open `abs` for reading only if it is a regular file, without following a symlink and
 * without blocking on a FIFO. `lstat` first, so a device or FIFO is never even opened; the
 * open file is then checked again (same inode, still regular) against a swap in between.
 * Throws ENOTREG (`<rel> is a symbolic link, not a regular file`) or the raw errno error.
 */
export async function openRegular(abs: string, rel: string): Promise<{ fh: FileHandle; st: Stats }> {
  const refuse = (st: Stats) => notRegular(`${rel} is ${kindOf(st)}, not a regular file`, rel);
  const before = await lstat(abs);
  if (!before.isFile()) throw refuse(before);
  let fh: FileHandle;
  try {
    fh = await open(abs, SAFE_READ);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'ENXIO') throw refuse(await lstat(abs).catch(() => before));
    throw err;
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw refuse(st);
    if (st.ino !== before.ino || st.dev !== before.dev) throw notRegular(`${rel} changed while it was being opened; try again`, rel);
    return { fh, st };
  } catch (err) {
    await fh.close();
    throw err;
  }
}

/**
 * Copy an open regular file to `dst`, which must not exist (O_EXCL), keeping its mode, then
 * fsync. Reads through the handle, never the name, so what was checked is what is copied.
 * A failed copy removes its own half-written `dst`. Throws the raw errno error.
 */
export async function copyFromHandle(src: FileHandle, srcSize: number, mode: number, dst: string, roots: readonly string[]): Promise<void> {
  const out = await open(assertInside('copy', dst, roots), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, mode & 0o777);
  try {
    const buf = Buffer.allocUnsafe(1024 * 1024);
    let pos = 0;
    for (;;) {
      const { bytesRead } = await src.read(buf, 0, buf.length, pos);
      if (bytesRead === 0) break;
      let done = 0;
      while (done < bytesRead) done += (await out.write(buf, done, bytesRead - done)).bytesWritten;
      pos += bytesRead;
    }
    await out.chmod(mode & 0o777); // the umask narrowed the mode open() gave
    await out.sync();
    if (pos !== srcSize) throw Object.assign(new Error(`copied ${pos} of ${srcSize} bytes (the backup changed while it was copied)`), { code: 'EAGAIN' });
    await out.close();
  } catch (err) {
    await out.close().catch(() => {});
    await unlink(dst).catch(() => {});
    throw err;
  }
}
