import { describe, expect, it } from 'vitest';
import { pausesAutopilot, retryStopOf } from '../../../../src/run/policy/retry-stop.js';

// The death-spiral guard's stop reason is a value (issue 9 item 3): whether autopilot pauses
// follows its kind, never the words of its reason.

const limits = { maxConsecutiveFailures: 3 };
const ledger = (consecutiveFailures: number) => ({ consecutiveFailures });
const launches = { what: 'launches', scope: 'session', spent: '10', cap: '10', key: 'limits.max_launches', reason: 'launch budget of this session used (10 of 10, limits.max_launches)' } as const;
const cost = { what: 'cost', scope: 'workspace', spent: '$5.00', cap: '$5.00', key: 'limits.max_cost_usd.workspace', reason: 'cost budget of this workspace used' } as const;

describe('retryStopOf', () => {
  it('lets retries go on below every limit', () => {
    expect(retryStopOf(ledger(2), limits, { closed: false, budget: null })).toBeNull();
  });

  it('names each stop by its kind, closed first, then the consecutive-failure guard, then the budget', () => {
    expect(retryStopOf(ledger(5), limits, { closed: true, budget: launches })).toEqual({ kind: 'closed', reason: 'the supervisor closed' });
    expect(retryStopOf(ledger(3), limits, { closed: false, budget: launches })).toEqual({
      kind: 'consecutive',
      reason: '3 consecutive failures across agents (limit 3, limits.max_consecutive_failures)',
    });
    expect(retryStopOf(ledger(0), limits, { closed: false, budget: launches })).toEqual({ kind: 'budget', reason: launches.reason });
    // Issue 17 item 4: money and tokens are the same decision, a stop that pauses autopilot.
    expect(retryStopOf(ledger(0), limits, { closed: false, budget: cost })).toEqual({ kind: 'spend', reason: cost.reason });
  });

  it('pauses autopilot only for the consecutive-failure guard, whatever the reason says', () => {
    expect(pausesAutopilot({ kind: 'consecutive', reason: 'limit hit' })).toBe(true);
    // A reason that happens to contain the word no longer pauses (the old /consecutive/ sniff did).
    expect(pausesAutopilot({ kind: 'budget', reason: 'budget used after 3 consecutive launches' })).toBe(false);
    expect(pausesAutopilot({ kind: 'closed', reason: 'closed after consecutive failures' })).toBe(false);
  });
});
