import { open, rename, unlink, stat } from 'node:fs/promises';
import { dirname, basename, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { assertInside } from './confine-path.js';

// Atomic replace: write a temp file in the same directory, check every byte landed,
// fsync it, rename over the target, fsync the directory. A crash or a full disk at any
// point leaves the old file intact. We do not use write-file-atomic: it ignores short
// writes, so on a full disk it can publish a truncated file (see README, design notes).

export class WriteError extends Error {
  constructor(
    message: string,
    readonly path: string,
    readonly code?: string,
  ) {
    super(message);
    this.name = 'WriteError';
  }
}

const explain = (path: string, err: NodeJS.ErrnoException): WriteError => {
  const code = err.code;
  const hint =
    code === 'ENOSPC' || code === 'EDQUOT'
      ? 'the disk is full; free some space and try again (the original file is unchanged)'
      : code === 'EACCES' || code === 'EPERM'
        ? 'permission denied; check the ownership and mode of the file and its directory'
        : code === 'EROFS'
          ? 'the file system is read-only'
          : err.message;
  return new WriteError(`cannot write ${path}: ${hint}`, path, code);
};

/**
 * `data`: text, bytes, or bytes in parts (written one after the other: a 10 MB answer is not
 * joined first). `roots`: where the file may land (the workspace, the runtime directory); a
 * path whose directory resolves elsewhere is refused before anything is written.
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array | readonly Uint8Array[], roots: readonly string[], opts: { mode?: number } = {}): Promise<void> {
  try {
    assertInside('rename', path, roots);
  } catch (err) {
    throw new WriteError((err as Error).message, path, 'ECONFINE');
  }
  const parts = typeof data === 'string' ? [Buffer.from(data, 'utf8')] : data instanceof Uint8Array ? [data] : data;
  const total = parts.reduce((n, p) => n + p.length, 0);
  const dir = dirname(path);
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  let mode: number | undefined;
  try {
    mode = (await stat(path)).mode & 0o7777;
  } catch {
    mode = undefined;
  }
  let fh;
  try {
    // `opts.mode`: a file that must never be readable by others from its first byte (a secrets file: 0600).
    fh = await open(tmp, 'wx', opts.mode ?? mode ?? 0o644);
    let pos = 0;
    for (const bytes of parts) {
      let off = 0;
      while (off < bytes.length) {
        const { bytesWritten } = await fh.write(bytes, off, bytes.length - off, pos);
        if (bytesWritten <= 0) throw Object.assign(new Error('short write'), { code: 'ENOSPC' });
        off += bytesWritten;
        pos += bytesWritten;
      }
    }
    await fh.sync();
    const size = (await fh.stat()).size;
    if (size !== total) throw Object.assign(new Error(`wrote ${size} of ${total} bytes`), { code: 'ENOSPC' });
    await fh.close();
    fh = undefined;
    await rename(tmp, path);
  } catch (err) {
    if (fh) await fh.close().catch(() => {});
    await unlink(tmp).catch(() => {});
    throw explain(path, err as NodeJS.ErrnoException);
  }
  await fsyncDir(dir);
}

export async function fsyncDir(dir: string): Promise<void> {
  try {
    const d = await open(dir, 'r');
    try {
      await d.sync();
    } finally {
      await d.close();
    }
  } catch {
    // Some file systems refuse fsync on a directory; the rename is still atomic.
  }
}
