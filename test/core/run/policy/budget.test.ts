import { describe, expect, it } from 'vitest';
import { budgetRefusal, budgetStopOf, launchesLeft, type BudgetCounts, type BudgetLimits } from '../../../../src/run/policy/budget.js';
import { zeroSpend, type CostLedger } from '../../../../src/run/journal/costs.js';

// The one budget decision every entry point asks (src/run/policy/budget.ts), on plain values: which
// budget stops a launch first, what the refusal says, and how many launches are left.

const costs = (session: Partial<ReturnType<typeof zeroSpend>> = {}, workspace: Partial<ReturnType<typeof zeroSpend>> = {}): CostLedger =>
  ({ session: { ...zeroSpend(), ...session }, workspace: { ...zeroSpend(), ...workspace }, cells: {}, agents: {}, lastSession: {} });
const counts = (session: number, ws: number, c: CostLedger = costs()): BudgetCounts => ({ launchesThisSession: session, launchesInWorkspace: ws, costs: c });
const money = { costUsd: { session: 1, workspace: 5 }, tokens: { session: 1000, workspace: null } };

describe('budgetStopOf', () => {
  it('lets a launch go under every cap, and stops at the session cap with reserved launches counted as made', () => {
    const limits: BudgetLimits = { maxLaunches: 3 };
    expect(budgetStopOf(counts(1, 1), limits)).toBeNull();
    expect(budgetStopOf(counts(1, 1), limits, 2)).toMatchObject({ what: 'launches', scope: 'session', spent: '3', cap: '3', key: 'limits.max_launches' });
  });

  it('counts the workspace across sessions: a fresh session does not get a fresh budget', () => {
    const stop = budgetStopOf(counts(0, 12), { maxLaunches: 99, maxLaunchesWorkspace: 12 });
    expect(stop?.reason).toBe('launch budget of this workspace used (12 of 12, limits.max_launches.workspace)');
    expect(budgetRefusal(stop!)).toBe('launch budget of this workspace used (12 of 12, limits.max_launches.workspace); raise limits.max_launches.workspace in checkroom.yaml');
  });

  it('money before tokens, session before workspace; a session refusal offers a new session', () => {
    const limits: BudgetLimits = { maxLaunches: 99, budget: money };
    const cost = budgetStopOf(counts(0, 0, costs({ costUsd: 1.004, tokensIn: 5000 })), limits);
    expect(cost).toMatchObject({ what: 'cost', scope: 'session', spent: '$1.00', cap: '$1.00', key: 'limits.max_cost_usd' });
    expect(budgetRefusal(cost!)).toMatch(/or start a new session$/);
    expect(budgetStopOf(counts(0, 0, costs({ costUsd: 0.5 }, { costUsd: 5 })), limits)).toMatchObject({ what: 'cost', scope: 'workspace' });
    expect(budgetStopOf(counts(0, 0, costs({ tokensIn: 600, tokensOut: 400 })), limits)).toMatchObject({ what: 'tokens', scope: 'session', spent: '1000', cap: '1000' });
    expect(budgetStopOf(counts(0, 0, costs({ tokensIn: 999 }, { tokensIn: 10 ** 9 })), limits)).toBeNull();
  });
});

describe('launchesLeft', () => {
  it('is the smaller of what the session and the workspace have left, never below 0', () => {
    expect(launchesLeft(counts(2, 7), { maxLaunches: 10, maxLaunchesWorkspace: 10 })).toBe(3);
    expect(launchesLeft(counts(2, 7), { maxLaunches: 10, maxLaunchesWorkspace: 10 }, 1)).toBe(2);
    expect(launchesLeft(counts(2, 0), { maxLaunches: 10 })).toBe(8);
  });

  it('is 0 once money or tokens are spent: they have no count to share out', () => {
    expect(launchesLeft(counts(0, 0, costs({ costUsd: 2 })), { maxLaunches: 10, budget: money })).toBe(0);
  });
});
