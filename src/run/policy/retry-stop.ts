import type { Limits } from '../../pipeline/config/types.js';
import type { Ledger } from '../journal/ledger.js';
import type { BudgetStop } from './budget.js';
import type { PauseStop } from './pause.js';

// Why automatic retries stop now (docs/domain.md, Handling agent faults, the death-spiral guard), as a value.
// runCell used to sniff the words (`/consecutive/.test(stop)`) to decide whether to pause
// autopilot; the kind says it now, and the reason is only for people.

export type RetryStop =
  | { kind: 'closed'; reason: string }
  /** Too many failures in a row across agents: autopilot pauses until a human looks. */
  | { kind: 'consecutive'; reason: string }
  | { kind: 'budget'; reason: string }
  /** A money or token budget is spent (limits.max_cost_usd / max_tokens): autopilot pauses. */
  | { kind: 'spend'; reason: string }
  /** Drain or a pause holds the cell (docs/drain.md): the retry is a new launch; the cell waits for resume, autopilot goes on. */
  | { kind: 'paused'; reason: string };

/** `budget`: what budget.ts decides for the next launch (reservations counted), or null. */
export function retryStopOf(
  l: Pick<Ledger, 'consecutiveFailures'>,
  limits: Pick<Limits, 'maxConsecutiveFailures'>,
  o: { closed: boolean; budget: BudgetStop | null; paused?: PauseStop | null },
): RetryStop | null {
  if (o.closed) return { kind: 'closed', reason: 'the supervisor closed' };
  if (o.paused) return { kind: 'paused', reason: o.paused.reason };
  if (l.consecutiveFailures >= limits.maxConsecutiveFailures) {
    return { kind: 'consecutive', reason: `${l.consecutiveFailures} consecutive failures across agents (limit ${limits.maxConsecutiveFailures}, limits.max_consecutive_failures)` };
  }
  // Launches (session or workspace) end the cell; money and tokens pause autopilot too.
  if (o.budget) return { kind: o.budget.what === 'launches' ? 'budget' : 'spend', reason: o.budget.reason };
  return null;
}

/** The consecutive-failure guard and a spent money or token budget pause autopilot; a closed supervisor or a used launch budget just ends the cell. */
export const pausesAutopilot = (s: RetryStop): boolean => s.kind === 'consecutive' || s.kind === 'spend';
