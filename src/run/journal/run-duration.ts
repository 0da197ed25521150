import type { ExitEvent } from './journal.js';

// THE derivation of one attempt's duration from the journal (docs/history.md, Runs;
// docs/foresight.md, Durations): History's run records and foresight's samples both call it,
// so the duration History shows of a run is the one the ETA counts. The run time is the exit's
// `durationMs` (the supervisor's own measure, spawn to exit), never the gap between two journal
// lines; a negative one (a clock stepped back) is 0 and a missing or odd one (an older or
// hand-edited line) is unknown. The journal does not record when a queued cluster job began to
// run, so the queue wait is not known apart from the run time: null until it is.

export interface AttemptDuration {
  /** Milliseconds from spawn to exit; null when the exit line carries no usable measure. */
  runMs: number | null;
  /** Milliseconds queued in a cluster scheduler before running; null: not recorded. */
  queueWaitMs: number | null;
}

export const attemptDuration = (e: Pick<ExitEvent, 'durationMs'>): AttemptDuration => {
  const ms = (e as { durationMs?: unknown }).durationMs;
  return { runMs: typeof ms === 'number' && Number.isFinite(ms) ? Math.max(0, ms) : null, queueWaitMs: null };
};
