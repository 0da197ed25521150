import { readFileSync } from 'node:fs';
import { readRunToken, terminateRun, type RunTag } from '../process/members.js';

// A run an earlier checkroom recorded (a launch without an exit in the journal), found again
// by what was recorded, never by its pid alone. Its leader is identified by
// pid AND start time (field 22 of /proc/<pid>/stat): a pid the kernel has given to another
// process since is "foreign" and neither it nor its group is ever signalled. Every member is
// found by the run token in its environment (CHECKROOM_RUN_TOKEN), so descendants that left
// the group with setsid are stopped too; the group itself is used only while it is provably
// the run's (leader ours, or leader gone and the group id still held by newer processes).

/** The recorded leader now: the very process, gone, another process, or unprovable (no start time recorded). */
export type Leader = 'ours' | 'gone' | 'foreign' | 'unproven';

export interface Recorded {
  pid: number | null;
  procStart: number | null;
  /** From the launch event; older journals have none (then the log's first line). */
  token?: unknown;
  logPath: string;
}

const TOKEN = /^[A-Za-z0-9_.-]{1,200}$/;

/** The run's token: the journal's if well formed, else the one its log's first line recorded. */
export const tokenOf = (run: Recorded): string | null =>
  typeof run.token === 'string' && TOKEN.test(run.token) ? run.token : readRunToken(run.logPath);

/** The leader's state, from /proc/<pid>/stat: state (field 3) and start time (field 22). */
export const leaderOf = (pid: number | null, procStart: number | null): Leader => {
  if (pid === null || !Number.isInteger(pid) || pid <= 0) return 'gone';
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return 'gone';
  }
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  if (rest[0] === 'Z') return 'gone';
  if (procStart === null) return 'unproven';
  return Number(rest[19]) === procStart ? 'ours' : 'foreign';
};

/**
 * How the run's processes are found: always by token; by group only when the leader is ours or
 * gone (a foreign or unproven pid's group may be someone else's). Null when nothing can be
 * proven to be the run's (no token, and its pid is not ours).
 */
export const tagOf = (run: Recorded, leader: Leader, token: string | null): RunTag | null => {
  const group = run.pid !== null && (leader === 'ours' || leader === 'gone') ? run.pid : null;
  if (group === null && token === null) return null;
  return { pgid: group, procStart: run.procStart, token, pipes: [] };
};

export interface Ended {
  /** `reaped`: processes of the run were stopped; `gone`: none was left; `foreign`: its pid is another process's (left alone) and nothing else is the run's. */
  outcome: 'reaped' | 'gone' | 'foreign';
  leader: Leader;
  /** The processes stopped (at most 50 listed). */
  stopped: number[];
}

/** End every process of a recorded run: SIGTERM, `graceMs`, SIGKILL, re-scanning by token (run-members.ts). */
export async function endRecorded(run: Recorded, graceMs: number): Promise<Ended> {
  const leader = leaderOf(run.pid, run.procStart);
  const tag = tagOf(run, leader, tokenOf(run));
  const stopped = tag === null ? [] : await terminateRun(tag, graceMs);
  const outcome = stopped.length > 0 ? 'reaped' : leader === 'foreign' || leader === 'unproven' ? 'foreign' : 'gone';
  return { outcome, leader, stopped: stopped.slice(0, 50) };
}
