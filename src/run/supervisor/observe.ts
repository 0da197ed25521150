import { followLog, type LogFollower } from '../process/log-follow.js';
import type { Ledger } from '../journal/ledger.js';
import type { LiveRunView, WaitingView } from './types.js';
import { observedRuns, observedWaiting } from '../journal/observed-runs.js';

// What an observer (a read-only second instance) shows of the driver's work (docs/reliability.md,
// Observers see what the driver sees):
// the same running set, attempts and retry countdowns as the driver, all from the journal the
// driver writes — launches without an exit are running, `retry_scheduled` is a countdown —
// and each running run's log followed on disk, so its pane shows what the driver's shows.

export interface DriverView {
  /** Follow the logs of the runs the journal shows live (call after each journal read). */
  poll(l: Ledger): void;
  runs(l: Ledger, skip: ReadonlySet<string>): LiveRunView[];
  waiting(l: Ledger, skip: ReadonlySet<string>): WaitingView[];
}

export function driverView(): DriverView {
  const logs = new Map<string, LogFollower>();
  return {
    poll(l) {
      const live = new Set(l.liveRuns.map((r) => r.runId));
      for (const id of logs.keys()) if (!live.has(id)) logs.delete(id);
      for (const r of l.liveRuns) {
        let f = logs.get(r.runId);
        if (!f) logs.set(r.runId, (f = followLog(r.logPath)));
        f.poll();
      }
    },
    // The derivation is observed-runs.ts's, shared with a headless scan; the log lines are this view's.
    runs: (l, skip) => observedRuns(l, skip).map((r) => ({ ...r, lines: logs.get(r.runId)?.lines() ?? [] })),
    waiting: observedWaiting,
  };
}
