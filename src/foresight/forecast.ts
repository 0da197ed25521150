import { budgetStopOf, type BudgetLimits } from '../run/policy/budget.js';
import type { CostLedger, Spend } from '../run/journal/costs.js';
import { zeroSpend } from '../run/journal/costs.js';
import type { Scheduled } from './schedule.js';
import type { BudgetRunOut } from './types.js';

// Cost to completion (docs/foresight.md, Cost to completion): each remaining cell costs its
// step's mean spend per attempt so far (the workspace's mean for a step with none yet), and
// takes one launch. Walking the cells in their estimated start order, the first one the
// launch decision itself (run/policy/budget.ts budgetStopOf) would refuse is where the budget runs out.

/** Mean spend per attempt of each step, from the journal's per-cell spend ("unit/step" keys). */
export function perStepSpend(costs: CostLedger): Map<string, Spend> {
  const by = new Map<string, Spend>();
  for (const [key, s] of Object.entries(costs.cells)) {
    const step = key.slice(key.lastIndexOf('/') + 1);
    const t = by.get(step) ?? zeroSpend();
    by.set(step, { costUsd: t.costUsd + s.costUsd, tokensIn: t.tokensIn + s.tokensIn, tokensOut: t.tokensOut + s.tokensOut, attempts: t.attempts + s.attempts });
  }
  return by;
}

const mean = (s: Spend): Spend => (s.attempts ? { costUsd: s.costUsd / s.attempts, tokensIn: s.tokensIn / s.attempts, tokensOut: s.tokensOut / s.attempts, attempts: 1 } : zeroSpend());
const plus = (a: Spend, b: Spend): Spend => ({ costUsd: a.costUsd + b.costUsd, tokensIn: a.tokensIn + b.tokensIn, tokensOut: a.tokensOut + b.tokensOut, attempts: a.attempts + b.attempts });

/** What one more attempt of a step is expected to cost: its mean so far, the workspace's for a step with none (a redrive's preview asks the same). */
export function spendPerAttempt(costs: CostLedger): (step: string) => Spend {
  const steps = perStepSpend(costs);
  const ws = mean(costs.workspace);
  return (step) => {
    const s = steps.get(step);
    return s && s.attempts ? mean(s) : ws;
  };
}

const WHAT: Record<string, string> = {
  'limits.max_launches': 'session launch budget',
  'limits.max_launches.workspace': 'workspace launch budget',
  'limits.max_cost_usd': 'session budget',
  'limits.max_cost_usd.workspace': 'workspace budget',
  'limits.max_tokens': 'session token budget',
  'limits.max_tokens.workspace': 'workspace token budget',
};

export interface CostInput {
  costs: CostLedger;
  launchesThisSession: number;
  launchesInWorkspace: number;
  limits: BudgetLimits | null;
}

/** Money to finish (null with no spend journalled) and the first budget the plan runs out of. */
export function costForecast(plan: readonly Scheduled[], c: CostInput): { costToCompleteUsd: number | null; runsOut: BudgetRunOut | null } {
  const per = spendPerAttempt(c.costs);
  // Cells in flight are launched and their spend is mostly to come: they count money, not launches.
  const order = [...plan].filter((s) => !s.cell.human).sort((a, b) => a.start - b.start);
  let add = zeroSpend();
  let launches = 0;
  let runsOut: BudgetRunOut | null = null;
  for (const s of order) {
    const launching = s.cell.startedAt === null;
    if (!runsOut && launching && c.limits) {
      const stop = budgetStopOf(
        {
          launchesThisSession: c.launchesThisSession + launches,
          launchesInWorkspace: c.launchesInWorkspace + launches,
          costs: { ...c.costs, session: plus(c.costs.session, add), workspace: plus(c.costs.workspace, add) },
        },
        c.limits,
      );
      if (stop) runsOut = { key: stop.key, what: WHAT[stop.key] ?? stop.key, unit: s.cell.unit, step: s.cell.step };
    }
    if (launching) launches++;
    add = plus(add, per(s.cell.step));
  }
  return { costToCompleteUsd: c.costs.workspace.attempts ? add.costUsd : null, runsOut };
}
