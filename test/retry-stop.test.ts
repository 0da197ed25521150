import { describe, expect, it } from 'vitest';
import { pausesAutopilot, retryStopOf } from '../src/run/retry-stop.js';

// The death-spiral guard's stop reason is a value (issue 9 item 3): whether autopilot pauses
// follows its kind, never the words of its reason.

const limits = { maxConsecutiveFailures: 3, maxLaunches: 10 };
const ledger = (consecutiveFailures: number, launchesThisSession = 0) => ({ consecutiveFailures, launchesThisSession });

describe('retryStopOf', () => {
  it('lets retries go on below every limit', () => {
    expect(retryStopOf(ledger(2, 4), limits, { closed: false, budgetLeft: 6 })).toBeNull();
  });

  it('names each stop by its kind, closed first, then the consecutive-failure guard, then the budget', () => {
    expect(retryStopOf(ledger(5), limits, { closed: true, budgetLeft: 0 })).toEqual({ kind: 'closed', reason: 'the supervisor closed' });
    expect(retryStopOf(ledger(3, 10), limits, { closed: false, budgetLeft: 0 })).toEqual({
      kind: 'consecutive',
      reason: '3 consecutive failures across agents (limit 3, limits.max_consecutive_failures)',
    });
    expect(retryStopOf(ledger(0, 10), limits, { closed: false, budgetLeft: 0 })).toEqual({ kind: 'budget', reason: 'launch budget of this session used (10 of 10)' });
  });

  it('pauses autopilot only for the consecutive-failure guard, whatever the reason says', () => {
    expect(pausesAutopilot({ kind: 'consecutive', reason: 'limit hit' })).toBe(true);
    // A reason that happens to contain the word no longer pauses (the old /consecutive/ sniff did).
    expect(pausesAutopilot({ kind: 'budget', reason: 'budget used after 3 consecutive launches' })).toBe(false);
    expect(pausesAutopilot({ kind: 'closed', reason: 'closed after consecutive failures' })).toBe(false);
  });
});
