import { randomBytes, timingSafeEqual } from 'node:crypto';
import { closeSync, lstatSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { assertInside } from '../fs/confine-path.js';
import { checkDir, pidAlive, type SocketPaths } from './where.js';

// The token beside the socket. The 0700 directory and the 0600 socket
// already make the kernel refuse a peer of another uid; the token is the second lock: a
// peer must also read a 0600 file only this user (and root) can read.

export interface TokenFile {
  pid: number;
  token: string;
}

export const newToken = (): string => randomBytes(32).toString('hex');

/** Written whole (temp 0600, then renamed): a reader sees the old file or the new one. */
export function writeToken(paths: SocketPaths, t: TokenFile): void {
  const tmp = `${paths.token}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = openSync(assertInside('write', tmp, [paths.dir]), 'wx', 0o600);
  try {
    writeSync(fd, JSON.stringify(t));
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, assertInside('rename', paths.token, [paths.dir]));
}

export function readToken(path: string): TokenFile | null {
  try {
    const v = JSON.parse(readFileSync(path, 'utf8').slice(0, 1024)) as Partial<TokenFile>;
    return typeof v.pid === 'number' && typeof v.token === 'string' ? { pid: v.pid, token: v.token } : null;
  } catch {
    return null;
  }
}

export function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

const uid = (): number => process.getuid?.() ?? -1;

/** `lstat` says `path` is a socket (or, for the token, a regular file) of this user; a link is neither. */
export function ownedAs(path: string, type: 'socket' | 'file'): boolean {
  try {
    const st = lstatSync(path);
    return (type === 'socket' ? st.isSocket() : st.isFile()) && (uid() < 0 || st.uid === uid());
  } catch {
    return false;
  }
}

/**
 * The socket and token of an instance that is gone (killed -9, crashed): removed; true when
 * cleaned. `refused`: nothing listens (ECONNREFUSED) — stale whatever the pid says, since a
 * pid can be reused; otherwise (no answer in time) stale only when the pid is dead.
 * `paths` are always derived (socketPaths over runtimeDirs), never read from a workspace, and
 * each name goes only when our checked directory holds it as our own socket or file (a forged pointer once made this delete ~/.ssh/id_ed25519).
 */
export function cleanStale(paths: SocketPaths, refused: boolean): boolean {
  try {
    checkDir(paths.dir);
  } catch {
    return false; // not our directory (or none): nothing in it is ours to remove
  }
  const t = readToken(paths.token);
  if (!refused && t && pidAlive(t.pid)) return false;
  if (ownedAs(paths.socket, 'socket')) rmSync(assertInside('unlink', paths.socket, [paths.dir]), { force: true });
  if (ownedAs(paths.token, 'file')) rmSync(assertInside('unlink', paths.token, [paths.dir]), { force: true });
  return true;
}
