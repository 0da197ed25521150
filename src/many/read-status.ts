import { execa } from 'execa';
import type { WorkspaceEntry } from './entries.js';
import { sshStatusCommand, unreachableReason, type SshOptions } from './ssh.js';
import { parseStatusDoc, summaryOf } from './summary.js';
import type { ReadResult } from './rows.js';
import { sanitizeLine } from '../text/sanitize.js';

// One read of one workspace's `status --json` (docs/many.md): a local one through this
// checkroom's own bin (which asks the running control room first, src/socket/client-fast.ts),
// a remote one through ssh and the remote's checkroom. Bounded in time and size.

export interface ReadOptions {
  /** This checkroom's bin: `node <bin> status --json DIR` for a local workspace. */
  bin: string;
  ssh: SshOptions;
  timeoutMs: number;
  env?: NodeJS.ProcessEnv;
}

/** A status document of 50k cells is ~15 MB; past this the answer is refused, not buffered. */
const MAX_BYTES = 64 * 1024 * 1024;

const firstLine = (s: string): string => sanitizeLine(s.split('\n').find((l) => l.trim() !== '')?.replace(/^checkroom: /, '') ?? '').slice(0, 200);

export async function readStatus(e: WorkspaceEntry, o: ReadOptions): Promise<ReadResult> {
  const { file, args } = e.kind === 'local' ? { file: process.execPath, args: [o.bin, 'status', '--json', e.dir] } : sshStatusCommand(e, o.ssh);
  const r = await execa(file, args, { reject: false, stdin: 'ignore', timeout: o.timeoutMs, maxBuffer: MAX_BYTES, encoding: 'utf8', env: o.env, extendEnv: o.env === undefined });
  const stderr = String(r.stderr ?? '');
  if (e.kind === 'ssh') {
    const why = r.isMaxBuffer ? null : unreachableReason(r.exitCode ?? null, stderr, !!r.timedOut);
    if (why !== null) return { kind: 'unreachable', reason: why };
  } else if (r.timedOut) return { kind: 'error', reason: 'status --json timed out' };
  if (r.isMaxBuffer) return { kind: 'error', reason: `the answer is larger than ${MAX_BYTES / 1024 / 1024} MB` };
  if (r.exitCode !== 0) return { kind: 'error', reason: firstLine(stderr) || `checkroom exited ${r.exitCode ?? r.signal}` };
  const parsed = parseStatusDoc(String(r.stdout ?? ''));
  return 'error' in parsed ? { kind: 'error', reason: parsed.error } : { kind: 'ok', summary: summaryOf(parsed.doc) };
}

/** How often the overview reads (docs/many.md, Live): remote every 5 s with backoff, local every 10 s and after its files change, 2 s apart at least. */
export interface PollOptions {
  localMs: number;
  remoteMs: number;
  gapMs: number;
}

const ms = (v: string | undefined, dflt: number): number => {
  const n = Number(v);
  return v !== undefined && Number.isFinite(n) && n >= 100 ? n : dflt;
};

/** The overview's read and poll settings from the environment: the remote checkroom's words, an ssh_config, the poll interval. */
export function overviewSettings(env: NodeJS.ProcessEnv, bin: string): { read: ReadOptions; poll: PollOptions } {
  const remote = (env.CHECKROOM_REMOTE_CHECKROOM ?? '').split(/\s+/).filter((w) => w !== '');
  const remoteMs = ms(env.CHECKROOM_OVERVIEW_POLL_MS, 5000);
  return {
    read: { bin, ssh: { remote, config: env.CHECKROOM_SSH_CONFIG || null, connectTimeout: 10 }, timeoutMs: 30_000 },
    poll: { localMs: 2 * remoteMs, remoteMs, gapMs: Math.min(2000, remoteMs) },
  };
}
