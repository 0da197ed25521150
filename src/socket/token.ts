import { randomBytes, timingSafeEqual } from 'node:crypto';
import { closeSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { pidAlive, type SocketPaths } from './where.js';

// The token beside the socket (issue 10 item 4). The 0700 directory and the 0600 socket
// already make the kernel refuse a peer of another uid; the token is the second lock: a
// peer must also read a 0600 file only this user (and root) can read.

export interface TokenFile {
  pid: number;
  token: string;
}

export const newToken = (): string => randomBytes(32).toString('hex');

/** Written whole (temp 0600, then renamed): a reader sees the old file or the new one. */
export function writeToken(path: string, t: TokenFile): void {
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = openSync(tmp, 'wx', 0o600);
  try {
    writeSync(fd, JSON.stringify(t));
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
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

/**
 * The socket and token of an instance that is gone (killed -9, crashed): removed; true when
 * cleaned. `refused`: nothing listens (ECONNREFUSED) — stale whatever the pid says, since a
 * pid can be reused; otherwise (no answer in time) stale only when the pid is dead.
 */
export function cleanStale(paths: SocketPaths, refused: boolean): boolean {
  const t = readToken(paths.token);
  if (!refused && t && pidAlive(t.pid)) return false;
  rmSync(paths.socket, { force: true });
  rmSync(paths.token, { force: true });
  return true;
}
