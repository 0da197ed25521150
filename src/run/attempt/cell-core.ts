import type { Claim } from '../../types.js';
import type { RunHandle } from '../types.js';
import type { AttemptWatch } from '../supervisor/agent.js';

// The flight a cell keeps while it runs, shared by the loop (supervisor-cell.ts) and the
// attempt (supervisor-attempt.ts) without their importing each other. What the cell may
// touch of the supervisor is the narrow ports of supervisor-ports.ts.

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
  /** Who cancelled: the operator's cancel holds the cell, a shutdown's does not (docs/reliability.md, A cancel is a hold). */
  cancelledBy?: 'operator' | 'shutdown';
  /** A pending backoff or breaker wait: resolve(false) ends it early. */
  wait: { timer: NodeJS.Timeout; resolve: (go: boolean) => void; retryAt: number | null; reason: string } | null;
  /** Claim before the first ⏳, restored on an operator cancel of the first attempt. */
  prevClaim: Claim | null;
  /** The current attempt's adapter and the facts its stream gave so far (docs/agents.md, Adapters). */
  watch?: AttemptWatch | null;
  /** The operator chose to continue the interrupted session (first attempt only). */
  continueAsked?: boolean;
  /** Left running by an earlier checkroom and watched from here (supervisor-adopt.ts). */
  adopted?: boolean;
  /** The operator launched it past a spent budget (`checkroom run --over-budget`, journalled). */
  overBudget?: boolean;
}

/** A run an earlier checkroom launched, re-attached through its executor (docs/scale-out.md). */
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
