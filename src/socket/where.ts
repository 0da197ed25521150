import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

// Where a control room's socket lives. Not in the workspace: unix sockets
// do not work on NFS or SSHFS, where long pipelines often sit. In the user's runtime
// directory (XDG_RUNTIME_DIR), else in a 0700 directory of ours under the temp dir. The
// directory is checked, not trusted: one owned by someone else, or writable by group or
// world, could hold a socket planted to answer in our place, so it is refused.

export class SocketDirError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SocketDirError';
  }
}

export interface SocketPaths {
  dir: string;
  /** The unix socket itself. */
  socket: string;
  /** `{pid, token}` 0600 beside the socket: a peer must present the token. */
  token: string;
}

const uidOf = (): number => process.getuid?.() ?? -1;

/** Where the sockets of this user live; nothing is created or checked. */
export function socketDirPath(env: NodeJS.ProcessEnv = process.env, uid = uidOf()): string {
  const runtime = env.XDG_RUNTIME_DIR;
  return runtime && runtime.startsWith('/') ? join(runtime, 'checkroom') : join(tmpdir(), `checkroom-${uid}`);
}

/**
 * Every directory a control room of this user may have put its socket in: this
 * environment's, then the login's runtime directory, then the temp dir's. An instance started
 * with another XDG_RUNTIME_DIR is still found here, by derivation, never by a path read from
 * the workspace (`.checkroom/socket.json` is shipped with a repository as
 * easily as any file, so it names nothing checkroom connects to or deletes).
 */
export function runtimeDirs(env: NodeJS.ProcessEnv = process.env, uid = uidOf()): string[] {
  const all = [socketDirPath(env, uid), socketDirPath({ XDG_RUNTIME_DIR: `/run/user/${uid}` }, uid), socketDirPath({}, uid)];
  return [...new Set(all)];
}

/** The directory the sockets of this user live in, made 0700 when absent; refused when unsafe. */
export function socketDir(env: NodeJS.ProcessEnv = process.env, uid = uidOf()): string {
  const dir = socketDirPath(env, uid);
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw new SocketDirError(`cannot create ${dir}: ${(err as Error).message}`);
  }
  checkDir(dir, uid);
  return dir;
}

/** Ours, a real directory (not a link), and nobody else may write in it or look inside. */
export function checkDir(dir: string, uid = uidOf()): void {
  const st = lstatSync(dir);
  if (!st.isDirectory()) throw new SocketDirError(`${dir} is not a directory (a link or a file is never trusted for the control socket)`);
  if (uid >= 0 && st.uid !== uid)
    throw new SocketDirError(`${dir} belongs to uid ${st.uid}, not to us (uid ${uid}): refusing to use it for the control socket`);
  if (st.mode & 0o077) throw new SocketDirError(`${dir} has mode ${(st.mode & 0o777).toString(8)}: other users could reach it; make it 0700 or remove it`);
}

/**
 * One key per workspace: the same directory reached by two paths is the same control room.
 * The real path's hash, not device+inode (both were weighed): both sides compute
 * it from the path they were given with no file opened, an inode is reused once a workspace
 * is deleted, and the key only names a file inside our own 0700 directory, so it carries no
 * trust either way.
 */
export function workspaceKey(root: string): string {
  let real: string;
  try {
    real = realpathSync(root);
  } catch {
    real = resolve(root);
  }
  return createHash('sha256').update(real).digest('hex').slice(0, 24);
}

export function socketPaths(root: string, dir: string): SocketPaths {
  const key = workspaceKey(root);
  return { dir, socket: join(dir, `${key}.sock`), token: join(dir, `${key}.token`) };
}

/** Alive on this host: signal 0 reaches it (EPERM: it exists, it is another user's). */
export function pidAlive(pid: unknown): boolean {
  if (typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The pointer under `.checkroom/`: says where the socket of this workspace is, for other
 * tools. checkroom writes it and never reads it; a tool that does must
 * check it names a socket of its own user inside that user's runtime directory.
 */
export const pointerPath = (root: string): string => join(root, '.checkroom', 'socket.json');
