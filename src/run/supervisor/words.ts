import type { BreakerConfig } from '../../pipeline/config/types.js';
import type { AgentLedger } from '../journal/ledger.js';

// The breaker in the operator's words: state, why, and what happens next.

export const breakerMessage = (a: AgentLedger, cfg: BreakerConfig): string => {
  const v = a.view;
  switch (v.state) {
    case 'open':
      return `breaker ${a.agent} open after ${v.consecutiveFailures} consecutive failures (threshold ${v.threshold}, trip ${v.trips}): no launches for ${(v.remainingMs / 1000).toFixed(1)} s`;
    case 'half_open':
      return `breaker ${a.agent} half-open: the next launch is a probe (a success closes it, a failure reopens it for longer)`;
    case 'held':
      return `breaker ${a.agent} held open by the operator: no launches until released`;
    case 'closed':
      return `breaker ${a.agent} closed (threshold ${Math.max(1, cfg.threshold)} consecutive failures)`;
  }
};
