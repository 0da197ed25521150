import { readFileSync, readdirSync } from 'node:fs';

// Linux process facts read from /proc. A pid alone does not identify a run: pids are
// recycled, so every record keeps the start time (field 22 of /proc/<pid>/stat, clock
// ticks since boot) and we only signal a pid whose start time still matches.

interface StatFields {
  state: string;
  pgrp: number;
  start: number;
  flags: number;
}

// The command name (field 2) is in parentheses and may itself contain spaces and ')',
// so fields are counted from the LAST ')' (proc(5)).
const readStat = (pid: number): StatFields | null => {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  const close = text.lastIndexOf(')');
  if (close < 0) return null;
  // After ')' come field 3 (state), 4 (ppid), 5 (pgrp) ... 9 (flags) ... 22 (starttime).
  const rest = text.slice(close + 2).split(' ');
  const start = Number(rest[19]);
  const pgrp = Number(rest[2]);
  if (!Number.isFinite(start) || !Number.isFinite(pgrp)) return null;
  return { state: rest[0] ?? '?', pgrp, start, flags: Number(rest[6]) || 0 };
};

/** Start time of `pid` in clock ticks since boot, or null when there is no such process. */
export const procStartTime = (pid: number): number | null => readStat(pid)?.start ?? null;

/** True when `pid` runs and is the very process recorded (a recycled pid is someone else; a zombie is dead). */
export const isSameProcessAlive = (pid: number, procStart: number | null): boolean => {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  const st = readStat(pid);
  if (!st || st.state === 'Z') return false;
  return procStart === null ? true : st.start === procStart;
};

// PF_FORKNOEXEC (include/linux/sched.h): forked, never exec'd. The kernel clears it before it
// closes the close-on-exec descriptors, and node's spawn returns only once its close-on-exec
// pipe closed (the exec) or the child died: right after a spawn the flag still set means the
// child died before it became the program.
const PF_FORKNOEXEC = 0x40;

/** Right after a spawn returned `pid`: true when that child died before it exec'd (nothing of the program ran). */
export const diedBeforeExec = (pid: number): boolean => {
  const st = readStat(pid);
  return st !== null && (st.flags & PF_FORKNOEXEC) !== 0;
};

// A terminal that hangs up signals its whole foreground process group: checkroom, and a child
// forked that instant, in that group until it makes its own session. That child dies of the
// SIGHUP before its exec, nothing of the program run, while the room leaves the run it thinks
// it started (seen in CI: tmux kill-session mid-launch, a "left running" agent already dead).
// Such a child is started again; the hang-up's signal came once.
const SPAWN_TRIES = 3;

/** `spawnOne()` again (at most SPAWN_TRIES in all) while its child died before its exec; `discard` frees a dead one's pipes. */
export const untilExeced = <T extends { pid?: number | undefined }>(spawnOne: () => T, discard: (dead: T) => void): T => {
  let child = spawnOne();
  for (let tries = 1; tries < SPAWN_TRIES && child.pid !== undefined && diedBeforeExec(child.pid); tries++) {
    discard(child);
    child = spawnOne();
  }
  return child;
};

/**
 * Live (non-zombie) members of process group `pgid`. Zombies are skipped on purpose: when
 * the leader is gone, orphans are reparented to PID 1, which in containers often never
 * reaps them, and `kill(-pgid, 0)` would then report a dead group as alive forever.
 */
export const groupMembers = (pgid: number): { pid: number; start: number }[] => {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return fallbackMembers(pgid);
  }
  const members: { pid: number; start: number }[] = [];
  for (const name of entries) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid <= 0) continue;
    const st = readStat(pid);
    if (st && st.pgrp === pgid && st.state !== 'Z') members.push({ pid, start: st.start });
  }
  return members;
};

// Without /proc (not Linux) the signal-0 probe is the best we have.
const fallbackMembers = (pgid: number): { pid: number; start: number }[] => {
  try {
    process.kill(-pgid, 0);
    return [{ pid: pgid, start: 0 }];
  } catch {
    return [];
  }
};

/** Signal a whole process group; a group that is already gone is not an error. */
export const signalGroup = (pgid: number, signal: NodeJS.Signals): boolean => {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
};

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const waitEmpty = async (pgid: number, ms: number, isOurs: (m: { start: number }) => boolean): Promise<boolean> => {
  const until = Date.now() + ms;
  for (;;) {
    if (!groupMembers(pgid).some(isOurs)) return true;
    if (Date.now() >= until) return false;
    await sleep(Math.min(25, Math.max(1, until - Date.now())));
  }
};

/**
 * SIGTERM the group, give it `graceMs` to exit, then SIGKILL whatever is left (a child that
 * traps TERM must not outlive its run — docs/domain.md, Handling agent faults, liveness). Resolves once the
 * group has no live members, or after a bounded wait if the kernel is slow to deliver.
 */
export const terminateGroup = async (
  pgid: number,
  graceMs: number,
  isOurs: (m: { start: number }) => boolean = () => true,
): Promise<void> => {
  // Nothing of ours left: do not signal at all (the group id may be free for reuse).
  if (!groupMembers(pgid).some(isOurs)) return;
  signalGroup(pgid, 'SIGTERM');
  if (await waitEmpty(pgid, Math.max(0, graceMs), isOurs)) return;
  signalGroup(pgid, 'SIGKILL');
  await waitEmpty(pgid, 2000, isOurs);
};

/**
 * After checkroom itself was killed (kill -9), the runs it launched may still be going.
 * Reap the recorded group only if it is still ours: the leader with the recorded start
 * time, or — the leader gone — members started no earlier than it (a group id cannot be
 * reused while any member holds it, and newer members prove descent from our run).
 */
export const reapGroup = async (pid: number, procStart: number | null, graceMs: number): Promise<'reaped' | 'gone' | 'foreign'> => {
  if (!Number.isInteger(pid) || pid <= 0) return 'gone';
  const leader = readStat(pid);
  if (leader && leader.state !== 'Z' && procStart !== null && leader.start !== procStart) return 'foreign';
  const isOurs = (m: { start: number }): boolean => procStart === null || m.start >= procStart;
  const ours = groupMembers(pid).filter(isOurs);
  if (ours.length === 0) return 'gone';
  await terminateGroup(pid, graceMs, isOurs);
  return 'reaped';
};
