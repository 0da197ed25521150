import { foresightOf } from '../foresight/foresight.js';
import { emptyDurations } from '../foresight/samples.js';
import type { PlanAgent } from '../foresight/schedule.js';
import type { Foresight } from '../foresight/types.js';
import type { BudgetLimits } from '../run/policy/budget.js';
import type { Ledger } from '../run/journal/ledger.js';
import type { WorkspaceState } from '../types.js';
import type { OperatorBreaker, OperatorQuota, OperatorRun } from './types.js';

// The operator model's foresight (docs/foresight.md): the same runs, breakers (their stored
// deadline) and journal fold every other part reads, so the control room, `status` and its
// `--json` say one ETA. The control room's model and a scan both come through here.

/** Cells that wait for a human: escalated or held by the operator, and not in flight. */
function humanCells(ledger: Ledger | null, runs: readonly OperatorRun[]): Set<string> {
  const flying = new Set(runs.map((r) => r.key));
  const out = new Set<string>();
  for (const c of Object.values(ledger?.cells ?? {})) if (!flying.has(c.key) && (c.state === 'needs_human' || c.hold)) out.add(c.key);
  return out;
}

const agentsOf = (breakers: readonly OperatorBreaker[]): Map<string, PlanAgent> =>
  new Map(breakers.map((b) => [b.agent, { limit: b.slots.limit, deadline: b.state === 'open' ? b.deadline : null, held: b.state === 'held' }]));

/** `quota`: the accounts waiting for their reset (operator/quota.ts): their agents' cells wait as for an open breaker. */
export function foresightFrom(
  ws: WorkspaceState,
  ledger: Ledger | null,
  runs: readonly OperatorRun[],
  breakers: readonly OperatorBreaker[],
  limits: BudgetLimits | null,
  at: number,
  quota: readonly OperatorQuota[] = [],
): Foresight {
  return foresightOf({
    ws,
    durations: ledger?.durations ?? emptyDurations(),
    runs,
    human: humanCells(ledger, runs),
    agents: agentsOf(breakers),
    quota,
    cost: ledger ? { costs: ledger.costs, launchesThisSession: ledger.launchesThisSession, launchesInWorkspace: ledger.launchesInWorkspace, limits } : null,
    at,
  });
}
