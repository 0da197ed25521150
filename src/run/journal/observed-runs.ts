import type { Ledger } from './ledger.js';
import type { LiveRunView, WaitingView } from '../supervisor/types.js';

// The runs in flight as the journal shows them: launches
// without an exit are running, a `retry_scheduled` cell waits for its next attempt. One
// derivation, read by an observer's snapshot (supervisor-observe.ts, which adds each run's
// followed log) and by a headless scan (cli/scan-journal.ts), so `status` / `plan` say of a
// run in flight what a running control room says. Pure: O(runs + cells of the ledger).

/** The journal's live runs not in `skip` (run ids this instance runs itself), without output lines. */
export const observedRuns = (l: Ledger, skip: ReadonlySet<string>): LiveRunView[] =>
  l.liveRuns
    .filter((r) => !skip.has(r.runId))
    .map((r) => ({
      runId: r.runId,
      unit: r.unit,
      step: r.step,
      agent: r.agent,
      attempt: r.attempt,
      pid: r.pid,
      logPath: r.logPath,
      startedAt: r.at,
      lines: [],
      origin: 'driver' as const,
    }));

/** The journal's cells waiting for their next attempt, not in `skip` (cell keys this instance flies itself). */
export const observedWaiting = (l: Ledger, skip: ReadonlySet<string>): WaitingView[] =>
  Object.values(l.cells)
    .filter((c) => c.state === 'retrying' && c.nextRetryAt !== null && !skip.has(c.key))
    .map((c) => ({ unit: c.unit, step: c.step, agent: c.agent ?? '-', retryAt: c.nextRetryAt, reason: c.reason ?? 'waiting for the next attempt' }));
