import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';

// The workspaces of one overview (docs/many.md): a directory here, or `ssh://[user@]host[:port]/abs/dir`
// read through that host's own checkroom. Everything is validated before it reaches an
// argv: a host or user that could read as an ssh option (`-oProxyCommand=…`) is refused,
// and a remote directory must be absolute and free of control characters.

export type WorkspaceEntry =
  | { kind: 'local'; dir: string; label: string }
  | { kind: 'ssh'; user: string | null; host: string; port: number | null; dir: string; label: string };

export class WorkspacesError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WorkspacesError';
  }
}

// A DNS name, an IPv4 address or a bracketed IPv6 one; never a leading '-'.
const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252})|\[[0-9A-Fa-f:.]+\])$/;
const USER = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,63}$/;
// eslint-disable-next-line no-control-regex -- the point: control characters are refused
const CONTROL = /[\u0000-\u001f\u007f]/;

const SSH_FORM = 'ssh://[user@]host[:port]/absolute/dir';

/** One entry from its text (a command-line argument or a line of --workspaces); throws a WorkspacesError saying what is wrong. */
export function parseEntry(text: string): WorkspaceEntry {
  if (CONTROL.test(text)) throw new WorkspacesError(`"${JSON.stringify(text).slice(1, -1)}" holds a control character; a workspace is a directory or ${SSH_FORM}`);
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
    if (text.trim() === '') throw new WorkspacesError('an empty workspace: give a directory or ' + SSH_FORM);
    return { kind: 'local', dir: text, label: text };
  }
  if (!text.startsWith('ssh://')) throw new WorkspacesError(`"${text}": only ssh:// is understood for a remote workspace (${SSH_FORM})`);
  const rest = text.slice('ssh://'.length);
  const slash = rest.indexOf('/');
  if (slash < 0) throw new WorkspacesError(`"${text}" has no directory: write ${SSH_FORM}`);
  const authority = rest.slice(0, slash);
  const dir = decodeDir(rest.slice(slash), text);
  const at = authority.lastIndexOf('@');
  const user = at < 0 ? null : authority.slice(0, at);
  const hostPort = at < 0 ? authority : authority.slice(at + 1);
  const m = /^(\[[^\]]*\]|[^:]*)(?::(\d*))?$/.exec(hostPort);
  const host = m?.[1] ?? '';
  if (!HOST.test(host)) throw new WorkspacesError(`"${text}": "${host}" is not a host name or address (letters, digits, dots and dashes, not starting with a dash)`);
  if (user !== null && !USER.test(user)) throw new WorkspacesError(`"${text}": "${user}" is not a user name (letters, digits, . _ -, not starting with a dash)`);
  const port = m?.[2] === undefined ? null : Number(m[2]);
  if (port !== null && (!Number.isInteger(port) || port < 1 || port > 65535 || m?.[2] === '')) throw new WorkspacesError(`"${text}": the port must be a number from 1 to 65535`);
  return { kind: 'ssh', user, host, port, dir, label: `${host}:${dir}` };
}

function decodeDir(raw: string, text: string): string {
  let dir: string;
  try {
    dir = decodeURIComponent(raw);
  } catch {
    throw new WorkspacesError(`"${text}": the directory has a broken %-escape`);
  }
  if (!isAbsolute(dir) || CONTROL.test(dir)) throw new WorkspacesError(`"${text}": the remote directory must be an absolute path without control characters`);
  return dir;
}

/** A --workspaces file: one entry a line, `#` comments and blank lines skipped; an error names its line. */
export function parseWorkspacesFile(text: string, file: string): WorkspaceEntry[] {
  const entries: WorkspaceEntry[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.replace(/(^|\s)#.*$/, '').trim();
    if (line === '') return;
    try {
      const e = parseEntry(line);
      // A relative directory in the file is relative to the file, wherever checkroom was started.
      entries.push(e.kind === 'local' ? { ...e, dir: resolve(dirname(file), e.dir) } : e);
    } catch (err) {
      throw new WorkspacesError(`${file}:${i + 1}: ${(err as Error).message}`);
    }
  });
  if (entries.length === 0) throw new WorkspacesError(`${file} lists no workspace: write one directory or ${SSH_FORM} a line`);
  return entries;
}

/** The overview's workspaces: the arguments, then the --workspaces file's lines; the same one twice is refused. */
export function entriesFrom(args: readonly string[], file: { name: string; text: string } | null): WorkspaceEntry[] {
  const all = [...args.map(parseEntry), ...(file ? parseWorkspacesFile(file.text, file.name) : [])];
  const key = (e: WorkspaceEntry) => (e.kind === 'local' ? `local:${resolve(e.dir)}` : `ssh:${e.user ?? ''}@${e.host}:${e.port ?? ''}${e.dir}`);
  const seen = new Set<string>();
  for (const e of all) {
    if (seen.has(key(e))) throw new WorkspacesError(`"${e.label}" is listed twice: list each workspace once`);
    seen.add(key(e));
  }
  return all;
}

/** The text of a --workspaces file, or a WorkspacesError that says why it could not be read. */
export function readWorkspacesFile(path: string): { name: string; text: string } {
  try {
    return { name: path, text: readFileSync(path, 'utf8') };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new WorkspacesError(`cannot read --workspaces ${path}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory (give a file listing one workspace a line)' : (err as Error).message}`);
  }
}
