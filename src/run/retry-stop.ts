import type { Limits } from '../pipeline/config-types.js';
import type { Ledger } from './ledger.js';

// Why automatic retries stop now (DOMAIN.md section 9, the death-spiral guard), as a value.
// runCell used to sniff the words (`/consecutive/.test(stop)`) to decide whether to pause
// autopilot; the kind says it now, and the reason is only for people (issue 9 item 3).

export type RetryStop =
  | { kind: 'closed'; reason: string }
  /** Too many failures in a row across agents: autopilot pauses until a human looks. */
  | { kind: 'consecutive'; reason: string }
  | { kind: 'budget'; reason: string }
  /** A money or token budget is spent (issue 11, limits.max_cost_usd / max_tokens): autopilot pauses. */
  | { kind: 'spend'; reason: string };

/** `budgetLeft`: launches left in this session, reservations counted. */
export function retryStopOf(l: Pick<Ledger, 'consecutiveFailures' | 'launchesThisSession'>, limits: Pick<Limits, 'maxConsecutiveFailures' | 'maxLaunches'>, o: { closed: boolean; budgetLeft: number; spent?: string | null }): RetryStop | null {
  if (o.closed) return { kind: 'closed', reason: 'the supervisor closed' };
  if (l.consecutiveFailures >= limits.maxConsecutiveFailures) {
    return { kind: 'consecutive', reason: `${l.consecutiveFailures} consecutive failures across agents (limit ${limits.maxConsecutiveFailures}, limits.max_consecutive_failures)` };
  }
  if (o.budgetLeft <= 0) return { kind: 'budget', reason: `launch budget of this session used (${l.launchesThisSession} of ${limits.maxLaunches})` };
  if (o.spent) return { kind: 'spend', reason: o.spent };
  return null;
}

/** The consecutive-failure guard and a spent money or token budget pause autopilot; a closed supervisor or a used launch budget just ends the cell. */
export const pausesAutopilot = (s: RetryStop): boolean => s.kind === 'consecutive' || s.kind === 'spend';
