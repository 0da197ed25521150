// Slurm job states → what checkroom makes of them, pure. The marker is the proof
// of completion whatever the scheduler says; the scheduler's word decides only what the
// marker cannot: a cluster fault (INFRA, not the agent's fault), a time limit, a cancel.
// States: https://slurm.schedmd.com/squeue.html#SECTION_JOB-STATE-CODES

export type SlurmVerdict =
  | { kind: 'waiting'; why: string }
  | { kind: 'running' }
  | { kind: 'ended'; end: JobEnd };

export type JobEnd =
  | { how: 'exit' }
  | { how: 'timeout'; note: string }
  | { how: 'cancelled'; note: string }
  | { how: 'infra'; note: string }
  | { how: 'oom'; note: string };

const INFRA = new Set(['NODE_FAIL', 'PREEMPTED', 'BOOT_FAIL']);
const WAITING = new Set(['PENDING', 'CONFIGURING', 'REQUEUED', 'REQUEUE_HOLD', 'REQUEUE_FED', 'RESV_DEL_HOLD', 'SUSPENDED', 'STOPPED']);
const RUNNING = new Set(['RUNNING', 'COMPLETING', 'SIGNALING', 'STAGE_OUT', 'RESIZING']);

/** The scheduler's Reason in words for the cell's why ("waiting: Resources"). */
export const waitingWhy = (state: string, reason: string): string => {
  const r = reason && reason !== 'None' && reason !== '(null)' ? reason : '';
  if (state === 'PENDING') return r ? `waiting: ${r}` : 'waiting: queued';
  return r ? `${state.toLowerCase()}: ${r}` : state.toLowerCase();
};

export const slurmVerdict = (state: string, reason: string): SlurmVerdict => {
  // squeue may print "CANCELLED by 0"; the state is the first word.
  const s = state.trim().split(/\s+/)[0]!.toUpperCase();
  if (WAITING.has(s)) return { kind: 'waiting', why: waitingWhy(s, reason) };
  if (RUNNING.has(s)) return { kind: 'running' };
  if (INFRA.has(s)) return { kind: 'ended', end: { how: 'infra', note: `Slurm ${s}${reason && reason !== 'None' ? ` (${reason})` : ''}` } };
  if (s === 'TIMEOUT' || s === 'DEADLINE') return { kind: 'ended', end: { how: 'timeout', note: `Slurm ${s}: the job hit its time limit` } };
  if (s === 'CANCELLED') return { kind: 'ended', end: { how: 'cancelled', note: 'Slurm CANCELLED' } };
  if (s === 'OUT_OF_MEMORY') return { kind: 'ended', end: { how: 'oom', note: 'Slurm OUT_OF_MEMORY' } };
  // COMPLETED, FAILED, SPECIAL_EXIT and anything newer: the exit code, the log rules and the
  // marker decide, as for a local process.
  return { kind: 'ended', end: { how: 'exit' } };
};

/** `--time` from the agent's timeout, as minutes:seconds, rounded up. Slurm enforces limits
 *  about every 30 s, so the job may run a little longer; the marker still decides. */
export const slurmTime = (timeoutMs: number): string => {
  const total = Math.max(1, Math.ceil(timeoutMs / 1000));
  return `${Math.floor(total / 60)}:${String(total % 60).padStart(2, '0')}`;
};

/** `--signal` for the grace period: SIGTERM to the batch shell this many seconds before the limit. */
export const slurmSignal = (graceMs: number): string => `B:TERM@${Math.min(65_535, Math.max(1, Math.ceil(graceMs / 1000)))}`;

/** `ExitCode=2:0` of scontrol → the exit status (the signal part, after the colon, is not). */
export const parseExitCode = (text: string): number | null => {
  const m = /(?:^|\s)ExitCode=(\d+):(\d+)/.exec(text);
  if (!m) return null;
  return Number(m[2]) !== 0 ? 128 + Number(m[2]) : Number(m[1]);
};

export interface SqueueRow {
  id: string;
  state: string;
  reason: string;
  /** When it was submitted and started (`N/A` before it starts), and its nodes: the shared poll
   *  carries them, so no job needs a call of its own to say where and when it ran. */
  submit: string;
  start: string;
  nodes: string;
  name: string;
  comment: string;
}

// The comment is last: it is the one field that may hold a `|`.
export const SQUEUE_FORMAT = '%i|%T|%r|%V|%S|%N|%j|%k';

/** An array's pending tasks as squeue prints them, `123_[5-99%10]` or `123_[1,3,7-9]`, one
 *  id per task (`123_5` …), so a task is found by its own id whether it runs or waits. */
export const expandArrayId = (id: string): string[] | null => {
  const m = /^(\d+)_\[([\d,-]+)(?:%\d+)?\]$/.exec(id);
  if (!m) return /^\d+(?:_\d+)?$/.test(id) ? [id] : null;
  const out: string[] = [];
  for (const part of m[2]!.split(',')) {
    const [a, b] = part.split('-').map(Number);
    if (!Number.isInteger(a) || (b !== undefined && !Number.isInteger(b))) return null;
    for (let i = a!; i <= (b ?? a!); i++) out.push(`${m[1]}_${i}`);
  }
  return out;
};

/** Rows of `squeue -h -o '%i|%T|%r|%V|%S|%N|%j|%k'`; the comment is last so a '|' in it stays in it.
 *  A pending range of array tasks is one row per task. */
export const parseSqueue = (text: string): SqueueRow[] =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .flatMap((l) => {
      const [id, state, reason, submit, start, nodes, name, ...rest] = l.split('|');
      const ids = id ? expandArrayId(id) : null;
      if (!ids || !state) return [];
      return ids.map((one) => ({ id: one, state, reason: reason ?? '', submit: submit ?? '', start: start ?? '', nodes: nodes ?? '', name: name ?? '', comment: rest.join('|') }));
    });
