import { constants } from 'node:fs';
import { copyFile, link, open, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { assertInside } from './confine-path.js';

// A no-clobber copy that is whole or absent (kill -9 during every write).
// copyFile(COPYFILE_EXCL) creates the destination name first and fills it after, so a kill
// in between left an empty or short "backup" that looked like a real one. Here the bytes go
// to a temp file under writeFileAtomic's name pattern (swept at start when orphaned), are
// checked and fsynced, and only then get the destination name through link(), which fails
// with EEXIST rather than replace anything.

/** Errors meaning "this file system cannot hard-link". */
const NO_LINK = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV', 'EMLINK']);

const fsynced = async (path: string, want: number): Promise<void> => {
  // Read-only is enough for fsync, and works for a copy that kept a 0444 mode.
  const fh = await open(path, 'r');
  try {
    await fh.sync();
    const got = (await fh.stat()).size;
    if (got !== want) throw Object.assign(new Error(`copied ${got} of ${want} bytes`), { code: 'ENOSPC' });
  } finally {
    await fh.close();
  }
};

/**
 * Copy `src` to `dst` only if `dst` does not exist; throws the raw errno error (EEXIST: taken).
 * `dst` must land inside `roots`; the temp file is its sibling.
 */
export async function copyFileExclusive(src: string, dst: string, roots: readonly string[]): Promise<void> {
  assertInside('link', dst, roots);
  const tmp = join(dirname(dst), `.${basename(dst)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await copyFile(src, tmp, constants.COPYFILE_EXCL);
    await fsynced(tmp, (await stat(src)).size);
  } catch (err) {
    await unlink(tmp).catch(() => {});
    throw err;
  }
  try {
    await link(tmp, dst);
  } catch (err) {
    if (!NO_LINK.has((err as NodeJS.ErrnoException).code ?? '')) {
      await unlink(tmp).catch(() => {});
      throw err;
    }
    // No hard links here: the no-clobber copy straight to the name is all there is.
    await unlink(tmp).catch(() => {});
    await copyDirect(src, dst);
    return;
  }
  await unlink(tmp).catch(() => {});
}

const copyDirect = async (src: string, dst: string): Promise<void> => {
  try {
    await copyFile(src, dst, constants.COPYFILE_EXCL);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') await unlink(dst).catch(() => {});
    throw err;
  }
  try {
    await fsynced(dst, (await stat(src)).size);
  } catch (err) {
    await unlink(dst).catch(() => {});
    throw err;
  }
};
