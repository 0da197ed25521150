import type { JobEnd } from './slurm-state.js';

// What a cluster job's handle does after one look, as a pure decision: state in,
// move out, tested without a scheduler (test/core/run/executors/job-decide.test.ts). job-handle.ts does it.

export type JobLook =
  /** The scheduler has not answered yet (first poll), or its answer was not readable. */
  | { kind: 'unknown'; why: string | null }
  /** The controller (slurmctld, the API server) did not answer at all. */
  | { kind: 'unreachable'; why: string }
  | { kind: 'waiting'; why: string }
  | { kind: 'running' }
  /** termed: the agent was sent SIGTERM by someone other than checkroom (Slurm's --signal
   *  warning before the time limit), so an exit then is the time limit's doing. */
  | { kind: 'ended'; end: JobEnd; exitCode: number | null; note?: string; termed?: boolean };

export type Stopping = 'cancel' | 'stalled' | 'timeout' | null;

export interface JobWatchState {
  /** Last time the log or the output file grew, or the job was still queued. */
  lastActivity: number;
  runningSince: number | null;
  stopping: Stopping;
  /** Since when the controller has not answered; null while it answers. */
  unreachableSince?: number | null;
}

export interface JobLimits {
  idleTimeoutMs: number;
  timeoutMs: number;
  /** Scheduler limits are checked coarsely; past timeout + slack checkroom ends the job itself. */
  timeoutSlackMs: number;
  /** A controller silent this long makes the job INFRA: shown so, re-checked, never relaunched. */
  infraTimeoutMs?: number;
}

export type JobMove =
  | { do: 'finish'; end: JobEnd; exitCode: number | null; note?: string }
  | { do: 'wait'; why: string | null }
  | { do: 'stop'; reason: 'stalled' | 'timeout'; note: string }
  | { do: 'run' };

export const decideJob = (s: JobWatchState, look: JobLook, t: number, lim: JobLimits, proven: boolean, name: string): JobMove => {
  if (look.kind === 'ended') {
    const warned = look.termed && s.stopping === null && look.end.how === 'exit';
    const end: JobEnd = warned ? { how: 'timeout', note: `${name} was signalled before its time limit and ended` } : look.end;
    return { do: 'finish', end, exitCode: look.exitCode, note: look.note };
  }
  // The marker is the proof, whatever the scheduler still shows.
  if (proven && s.stopping !== 'cancel') {
    const shown = look.kind === 'running' ? 'RUNNING' : look.kind === 'waiting' ? look.why : 'unknown';
    return { do: 'finish', end: { how: 'exit' }, exitCode: 0, note: `the marker is on disk while ${name} still shows ${shown}: done by the marker` };
  }
  if (look.kind === 'unreachable') {
    // The job may well still run: a silent controller is the cluster's fault (INFRA), and the
    // job is re-checked when it answers again — never submitted a second time.
    const silentMs = t - (s.unreachableSince ?? t);
    if (lim.infraTimeoutMs === undefined || silentMs < lim.infraTimeoutMs) return { do: 'wait', why: look.why };
    return { do: 'wait', why: `INFRA: the controller has not answered for ${Math.round(silentMs / 1000)} s (${look.why}); ${name} is re-checked at every poll, not relaunched` };
  }
  if (look.kind !== 'running') return { do: 'wait', why: look.why };
  const since = s.runningSince ?? t;
  if (s.stopping) return { do: 'run' };
  if (t - s.lastActivity > lim.idleTimeoutMs) return { do: 'stop', reason: 'stalled', note: `no output and no output-file growth for ${Math.round((t - s.lastActivity) / 1000)} s: stopping ${name}` };
  if (t - since > lim.timeoutMs + lim.timeoutSlackMs) return { do: 'stop', reason: 'timeout', note: `running past its timeout: stopping ${name}` };
  return { do: 'run' };
};
