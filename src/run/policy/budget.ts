import type { Limits } from '../../pipeline/config/types.js';
import { tokensOf, type CostLedger } from '../journal/costs.js';

// May this launch go, budget-wise? One decision for every entry point:
// autopilot, the control room's keys, `checkroom run`, `run --next [--auto]` and the socket
// all reach it through the supervisor (launchCell, each attempt's reservation, the retry
// guard) and the ledger's pause. A spent budget used to stop autopilot only: `checkroom run
// UNIT STEP` launched past it without a word, and limits.max_launches counted one session,
// so a cron loop of `run --next --auto` got a fresh budget every time. The workspace scope
// counts the journal's launches, whoever made them, in whichever session.

export type BudgetWhat = 'launches' | 'cost' | 'tokens';
export type BudgetScope = 'session' | 'workspace';

export interface BudgetStop {
  what: BudgetWhat;
  scope: BudgetScope;
  spent: string;
  cap: string;
  /** The config key that raises it. */
  key: string;
  /** "launch budget of this workspace used (12 of 12, limits.max_launches.workspace)". */
  reason: string;
}

/** What the decision reads of the ledger: counts folded from the journal. */
export interface BudgetCounts {
  launchesThisSession: number;
  launchesInWorkspace: number;
  costs: CostLedger;
}

export type BudgetLimits = Pick<Limits, 'maxLaunches' | 'maxLaunchesWorkspace' | 'budget'>;

const usd = (n: number): string => `$${n.toFixed(2)}`;

const NOUN: Record<BudgetWhat, string> = { launches: 'launch', cost: 'cost', tokens: 'token' };

const stopOf = (what: BudgetWhat, scope: BudgetScope, spent: string, cap: string, key: string): BudgetStop => ({
  what,
  scope,
  spent,
  cap,
  key,
  reason: `${NOUN[what]} budget of this ${scope} used (${spent} of ${cap}, ${key})`,
});

/**
 * The first budget this launch would go past, or null. `reserved`: launches this process
 * has let through and not yet journalled (they count as made).
 */
export function budgetStopOf(c: BudgetCounts, limits: BudgetLimits, reserved = 0): BudgetStop | null {
  const session = c.launchesThisSession + reserved;
  if (session >= limits.maxLaunches) return stopOf('launches', 'session', String(session), String(limits.maxLaunches), 'limits.max_launches');
  const ws = limits.maxLaunchesWorkspace;
  const all = c.launchesInWorkspace + reserved;
  if (ws !== undefined && all >= ws) return stopOf('launches', 'workspace', String(all), String(ws), 'limits.max_launches.workspace');
  const b = limits.budget;
  if (!b) return null;
  const spent = c.costs;
  if (b.costUsd.session !== null && spent.session.costUsd >= b.costUsd.session)
    return stopOf('cost', 'session', usd(spent.session.costUsd), usd(b.costUsd.session), 'limits.max_cost_usd');
  if (b.costUsd.workspace !== null && spent.workspace.costUsd >= b.costUsd.workspace)
    return stopOf('cost', 'workspace', usd(spent.workspace.costUsd), usd(b.costUsd.workspace), 'limits.max_cost_usd.workspace');
  if (b.tokens.session !== null && tokensOf(spent.session) >= b.tokens.session)
    return stopOf('tokens', 'session', String(tokensOf(spent.session)), String(b.tokens.session), 'limits.max_tokens');
  if (b.tokens.workspace !== null && tokensOf(spent.workspace) >= b.tokens.workspace)
    return stopOf('tokens', 'workspace', String(tokensOf(spent.workspace)), String(b.tokens.workspace), 'limits.max_tokens.workspace');
  return null;
}

/** Launches that may still go: 0 when any budget is spent (money and tokens have no count to share out). */
export function launchesLeft(c: BudgetCounts, limits: BudgetLimits, reserved = 0): number {
  if (budgetStopOf(c, limits, reserved)) return 0;
  const session = limits.maxLaunches - c.launchesThisSession - reserved;
  const ws = limits.maxLaunchesWorkspace === undefined ? Infinity : limits.maxLaunchesWorkspace - c.launchesInWorkspace - reserved;
  return Math.max(0, Math.min(session, ws));
}

/** The refusal in words: what is spent and how to raise it. */
export const budgetRefusal = (s: BudgetStop): string => `${s.reason}; raise ${s.key} in checkroom.yaml${s.scope === 'session' ? ' or start a new session' : ''}`;
