import { closeSync, constants, openSync, readFileSync, readSync, readdirSync, readlinkSync } from 'node:fs';

// Every process of one run, wherever it went. The process group catches
// ordinary helpers; a descendant that calls setsid() leaves the group and the session, so
// two more facts are read from /proc: the run's environment token (inherited by every
// descendant unless it rebuilds its environment — Jenkins' ProcessTreeKiller finds build
// processes the same way) and the run's output pipes (whoever holds one open keeps the run
// from draining). Only processes started no earlier than the agent can be its descendants,
// which also keeps a recycled pid or group id of someone else out.
//
// What remains invisible: a descendant that rebuilt its environment, left the group AND
// closed our pipes. It no longer holds the run open (the drain ends), and nothing on the
// machine ties it to the run any more; it is the one case checkroom cannot stop.

/** The variable every agent (and so every descendant) inherits; its value is the run's token. */
export const RUN_TOKEN_VAR = 'CHECKROOM_RUN_TOKEN';

export interface RunTag {
  /** The run's process group; null when it is not provably ours (a restart found its leader's pid recycled or unproven). */
  pgid: number | null;
  /** The agent's start time (clock ticks since boot); null when unknown (then nothing is filtered by age). */
  procStart: number | null;
  /** The run's token; null for a run recorded before tokens (then only the group finds it). */
  token: string | null;
  /** `pipe:[inode]` or `socket:[inode]` of the agent's stdout and stderr. */
  pipes: string[];
}

export interface Member {
  pid: number;
  start: number;
  pgrp: number;
}

const readStat = (pid: number): { state: string; pgrp: number; start: number } | null => {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which may contain ')' itself (proc(5)).
    const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
    const start = Number(rest[19]);
    const pgrp = Number(rest[2]);
    return Number.isFinite(start) && Number.isFinite(pgrp) ? { state: rest[0] ?? '?', pgrp, start } : null;
  } catch {
    return null;
  }
};

const link = (path: string): string | null => {
  try {
    return readlinkSync(path);
  } catch {
    return null;
  }
};

/**
 * The pipes behind `pid`'s stdout and stderr (read right after spawn, before it can move
 * them). libuv makes them socketpairs (`socket:[inode]`), a shell pipeline `pipe:[inode]`;
 * every process that inherited the agent's end links to the same inode.
 */
export const pipesOf = (pid: number): string[] =>
  [1, 2].map((fd) => link(`/proc/${pid}/fd/${fd}`)).filter((l): l is string => l !== null && /^(pipe|socket):\[\d+\]$/.test(l));

const hasToken = (pid: number, entry: string): boolean => {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(entry);
  } catch {
    return false;
  }
};

const holdsPipe = (pid: number, pipes: string[]): boolean => {
  if (pipes.length === 0) return false;
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      const l = link(`/proc/${pid}/fd/${fd}`);
      return l !== null && pipes.includes(l);
    });
  } catch {
    return false;
  }
};

/** Live (non-zombie) processes of the run: its group, its token's bearers, its pipes' holders. Never this process. */
export const runMembers = (tag: RunTag): Member[] => {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const entry = tag.token === null ? null : `${RUN_TOKEN_VAR}=${tag.token}`;
  const found: Member[] = [];
  for (const name of names) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) continue;
    const st = readStat(pid);
    if (!st || st.state === 'Z') continue;
    if (tag.procStart !== null && st.start < tag.procStart) continue;
    if (st.pgrp === tag.pgid || (entry !== null && hasToken(pid, entry)) || holdsPipe(pid, tag.pipes)) found.push({ pid, start: st.start, pgrp: st.pgrp });
  }
  return found;
};

// Signal one process only if it is still the one found (its pid may have been recycled since).
const signalSame = (m: Member, signal: NodeJS.Signals): void => {
  if (readStat(m.pid)?.start !== m.start) return;
  try {
    process.kill(m.pid, signal);
  } catch {
    // gone in between
  }
};

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

// The group is signalled as a whole only while a member of ours still holds its id (a free
// group id may belong to someone else); everyone found is also signalled one by one.
const signalAll = (tag: RunTag, members: Member[], signal: NodeJS.Signals): void => {
  if (tag.pgid !== null && members.some((m) => m.pgrp === tag.pgid)) {
    try {
      process.kill(-tag.pgid, signal);
    } catch {
      // the group emptied in between
    }
  }
  for (const m of members) signalSame(m, signal);
};

// `resend`: a process forked between two looks is signalled on the next look (SIGKILL phase).
const waitGone = async (tag: RunTag, ms: number, resend: NodeJS.Signals | null): Promise<Member[]> => {
  const until = Date.now() + ms;
  for (;;) {
    const left = runMembers(tag);
    if (left.length === 0 || Date.now() >= until) return left;
    if (resend) signalAll(tag, left, resend);
    await sleep(Math.min(25, Math.max(1, until - Date.now())));
  }
};

/**
 * SIGTERM every process of the run, give them `graceMs`, SIGKILL what is left, then wait
 * (bounded) until none is alive. Returns the pids that were found, for the run's log.
 */
export const terminateRun = async (tag: RunTag, graceMs: number): Promise<number[]> => {
  const first = runMembers(tag);
  if (first.length === 0) return [];
  signalAll(tag, first, 'SIGTERM');
  const stubborn = await waitGone(tag, Math.max(0, graceMs), null);
  if (stubborn.length > 0) {
    signalAll(tag, stubborn, 'SIGKILL');
    await waitGone(tag, 2000, 'SIGKILL');
  }
  return first.map((m) => m.pid);
};

/** SIGKILL every process of the run at once, synchronously: the last resort of a shutdown out of time. */
export const killRunNow = (tag: RunTag): void => {
  signalAll(tag, runMembers(tag), 'SIGKILL');
};

/**
 * The token a run's log recorded on its first line (`[checkroom] start … token=…`), so a later
 * checkroom — after this one was killed outright — can still find the run's escaped
 * descendants. Null when the log is unreadable or older than tokens.
 */
export const readRunToken = (logPath: string): string | null => {
  let fd: number;
  try {
    // Non-blocking: a FIFO put where the log was must not hang the start.
    fd = openSync(logPath, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const buf = Buffer.alloc(4096);
    const n = readSync(fd, buf, 0, buf.length, 0);
    const first = buf.subarray(0, n).toString('utf8').split('\n')[0] ?? '';
    return /^\[checkroom\] start .* token=([A-Za-z0-9_.-]+) /.exec(first)?.[1] ?? null;
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
};
