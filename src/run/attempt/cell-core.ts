import type { WorkspaceConfig } from '../../pipeline/config-types.js';
import type { Claim } from '../../types.js';
import type { NewJournalEvent } from '../journal/journal.js';
import type { Ledger } from '../journal/ledger.js';
import type { RetryStop } from '../policy/retry-stop.js';
import type { RunHandle } from '../types.js';
import type { SupervisorEvent } from '../supervisor/types.js';
import type { AttemptWatch } from '../supervisor/agent.js';

// What a cell's run needs from the supervisor, and the flight it keeps while it runs: split
// out of supervisor-cell.ts so the attempt (supervisor-attempt.ts) and the loop share them
// without importing each other (issue 9 item 3).

/** What the loop needs from the supervisor. */
export interface CellCore {
  root: string;
  config: WorkspaceConfig;
  now(): number;
  rand(): number;
  append(e: NewJournalEvent): Promise<void>;
  ledger(): Ledger;
  emit(e: SupervisorEvent): void;
  mark(unit: string, step: string, claim: Claim): Promise<void>;
  /** Reserve one launch of the budgets (budget.ts); a reason when none is left, unless the flight goes over budget. */
  reserveLaunch(flight: Flight): string | null;
  releaseLaunch(): void;
  /** Why automatic retries of this flight must stop now (death-spiral guard, budgets), or null. */
  retryStop(flight: Flight): RetryStop | null;
  /** Wait until the agent's breaker lets a launch through; a reason when it never will. */
  waitForBreaker(flight: Flight, agent: string): Promise<string | null>;
  /** The cell's attempt ended: the half-open probes it claimed are free (breaker-gate.ts). */
  releaseProbes(key: string): void;
  /** The consecutive-failure limit was hit: pause autopilot and say so. */
  pauseFor(reason: string): Promise<void>;
}

export interface Flight {
  unit: string;
  step: string;
  agent: string;
  handle: RunHandle | null;
  runId: string | null;
  attempt: number;
  logPath: string | null;
  startedAt: number;
  cancelled: boolean;
  /** Who cancelled: the operator's cancel holds the cell, a shutdown's does not (issue 17 item 3). */
  cancelledBy?: 'operator' | 'shutdown';
  /** A pending backoff or breaker wait: resolve(false) ends it early. */
  wait: { timer: NodeJS.Timeout; resolve: (go: boolean) => void; retryAt: number | null; reason: string } | null;
  /** Claim before the first ⏳, restored on an operator cancel of the first attempt. */
  prevClaim: Claim | null;
  /** The current attempt's adapter and the facts its stream gave so far (issue 11). */
  watch?: AttemptWatch | null;
  /** The operator chose to continue the interrupted session (first attempt only). */
  continueAsked?: boolean;
  /** Left running by an earlier checkroom and watched from here (supervisor-adopt.ts). */
  adopted?: boolean;
  /** The operator launched it past a spent budget (`checkroom run --over-budget`, journalled; issue 17 item 4). */
  overBudget?: boolean;
}

/** A run an earlier checkroom launched, re-attached through its executor (issue 12). */
export interface AdoptedRun {
  handle: RunHandle;
  runId: string;
  attempt: number;
  argv: string[];
  logPath: string;
  startedAt: number;
}

export const sleepFor = (flight: Flight, ms: number, retryAt: number | null, reason: string): Promise<boolean> =>
  new Promise((resolve) => {
    if (flight.cancelled) return resolve(false);
    const timer = setTimeout(
      () => {
        flight.wait = null;
        resolve(true);
      },
      Math.max(0, ms),
    );
    flight.wait = {
      timer,
      retryAt,
      reason,
      resolve: (go) => {
        clearTimeout(timer);
        flight.wait = null;
        resolve(go);
      },
    };
  });
