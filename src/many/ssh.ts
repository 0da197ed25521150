import type { WorkspaceEntry } from './entries.js';

// How a remote workspace is read (docs/many.md, Remote): the remote host's own checkroom
// answers `status --json DIR` over ssh; no agent code runs on our side. The argv is an array
// (never a shell string here); ssh joins the words after the host into one line for the
// remote shell, so each is single-quoted for it.

type SshEntry = Extract<WorkspaceEntry, { kind: 'ssh' }>;

/** One word for a POSIX shell: single-quoted, a quote inside as '\''. */
export const quoteForShell = (word: string): string => `'${word.replaceAll("'", `'\\''`)}'`;

export interface SshOptions {
  /** The remote checkroom as argv words (default `checkroom`; CHECKROOM_REMOTE_CHECKROOM). */
  remote?: readonly string[];
  /** An ssh_config file for these connections (CHECKROOM_SSH_CONFIG). */
  config?: string | null;
  /** Seconds ssh waits for the connection. */
  connectTimeout?: number;
}

/** The ssh command that prints the remote workspace's `status --json`. */
export function sshStatusCommand(e: SshEntry, o: SshOptions = {}): { file: string; args: string[] } {
  const remote = o.remote && o.remote.length > 0 ? o.remote : ['checkroom'];
  const args = ['-o', 'BatchMode=yes', '-o', `ConnectTimeout=${o.connectTimeout ?? 10}`, '-o', 'ServerAliveInterval=5', '-o', 'ServerAliveCountMax=2'];
  if (o.config) args.push('-F', o.config);
  if (e.port !== null) args.push('-p', String(e.port));
  if (e.user !== null) args.push('-l', e.user);
  // `--`: nothing after it is an option, whatever the host; the host was validated too (entries.ts).
  args.push('--', e.host, [...remote, 'status', '--json', e.dir].map(quoteForShell).join(' '));
  return { file: 'ssh', args };
}

/** Why a remote could not be read, in the operator's words, from ssh's exit and stderr; null: it was reached (the remote checkroom itself failed). */
export function unreachableReason(exitCode: number | null, stderr: string, timedOut: boolean): string | null {
  if (timedOut) return 'timed out';
  const err = stderr.toLowerCase();
  if (exitCode === 127 || /command not found|no such file or directory.*checkroom|checkroom: not found/.test(err)) return 'checkroom is not installed on the remote host (or not on its PATH)';
  if (exitCode !== 255) return null;
  if (err.includes('connection refused')) return 'connection refused';
  if (err.includes('timed out')) return 'connection timed out';
  if (err.includes('permission denied') || err.includes('host key verification failed')) return 'authentication failed';
  if (err.includes('could not resolve hostname')) return 'unknown host';
  if (err.includes('no route to host') || err.includes('network is unreachable')) return 'no route to host';
  if (err.includes('closed by remote host') || err.includes('connection reset')) return 'connection closed';
  const first = stderr.split('\n').find((l) => l.trim() !== '');
  return first ? `ssh: ${first.trim().slice(0, 120)}` : 'ssh failed';
}
