import { isAbsolute, join } from 'node:path';
import type { JournalEvent } from '../journal/journal.js';

// The attempts whose logs exist, from the journal (docs/logs.md): each launch event names its
// log; its exit, if any, gives the class and the classified error; a prune event says the log
// was removed. Pure: the pager, `checkroom logs` and the disk budget read the same list.

export interface AttemptLog {
  runId: string;
  unit: string;
  step: string;
  agent: string;
  attempt: number;
  /** Absolute path of the log. */
  logPath: string;
  launchedAt: number;
  /** The exit's class, null while the run is live (or its exit was never journalled). */
  class: string | null;
  /** The classified error in one line (the exit's), '' when none. */
  error: string;
  live: boolean;
  /** The disk budget removed it (a `log_pruned` event). */
  pruned: boolean;
}

/** Every attempt's log, oldest launch first. */
export function attemptLogs(events: readonly JournalEvent[], root: string): AttemptLog[] {
  const byRun = new Map<string, AttemptLog>();
  for (const e of events) {
    if (e.type === 'launch') {
      byRun.set(e.runId, {
        runId: e.runId,
        unit: e.unit,
        step: e.step,
        agent: e.agent,
        attempt: e.attempt,
        logPath: isAbsolute(e.logPath) ? e.logPath : join(root, e.logPath),
        launchedAt: e.at,
        class: null,
        error: '',
        live: true,
        pruned: false,
      });
    } else if (e.type === 'exit' || e.type === 'reaped') {
      const a = byRun.get(e.runId);
      if (a) {
        a.live = false;
        if (e.type === 'exit') {
          a.class = e.class;
          a.error = e.error ?? '';
        }
      }
    } else if (e.type === 'log_pruned') {
      const a = byRun.get(e.runId);
      if (a) a.pruned = true;
    }
  }
  return [...byRun.values()];
}

/** One cell's attempts, oldest first. */
export const cellAttempts = (all: readonly AttemptLog[], unit: string, step: string): AttemptLog[] =>
  all.filter((a) => a.unit === unit && a.step === step);

/** Attempt `n` of a cell (1-based, as the journal numbers it; a relaunch may repeat a number: the latest wins), or its latest. */
export const pickAttempt = (attempts: readonly AttemptLog[], n: number | null): AttemptLog | null =>
  n === null ? (attempts.at(-1) ?? null) : ([...attempts].reverse().find((a) => a.attempt === n) ?? null);
