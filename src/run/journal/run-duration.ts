import type { ExitEvent } from './journal.js';

// THE derivation of one attempt's duration from the journal (docs/history.md, Runs;
// docs/foresight.md, Durations): History's run records and foresight's samples both call it,
// so the duration History shows of a run is the one the ETA counts. The run time is the exit's
// `durationMs` (the supervisor's own measure, spawn to exit), never the gap between two journal
// lines; a negative one (a clock stepped back) is 0 and a missing or odd one (an older or
// hand-edited line) is unknown. A cluster job's exit carries its wait in the scheduler's queue
// (`queueWaitMs`, Slurm's Start − Submit: docs/scale-out.md, Queue time): the run time is the
// rest, so foresight's durations never count a busy queue as a slow step.

export interface AttemptDuration {
  /** Milliseconds from spawn to exit; null when the exit line carries no usable measure. */
  runMs: number | null;
  /** Milliseconds queued in a cluster scheduler before running; null: not recorded. */
  queueWaitMs: number | null;
}

const finite = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? Math.max(0, v) : null);

export const attemptDuration = (e: Pick<ExitEvent, 'durationMs' | 'queueWaitMs'>): AttemptDuration => {
  const ms = finite((e as { durationMs?: unknown }).durationMs);
  const wait = finite((e as { queueWaitMs?: unknown }).queueWaitMs);
  return { runMs: ms === null ? null : Math.max(0, ms - (wait ?? 0)), queueWaitMs: wait };
};
