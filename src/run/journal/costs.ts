import type { Budget } from '../../pipeline/config/types.js';
import { cellKey } from '../../types.js';
import type { AgentFactsEvent } from './agent.js';

// Money and tokens per attempt, cell, agent, session and workspace, folded
// from the journal's agent_facts events, so a restart shows what was spent. An attempt may
// report twice (its session id as soon as it is seen, everything at its exit): the latest
// report of a run replaces the earlier one, never adds to it.

export interface Spend {
  costUsd: number;
  tokensIn: number;
  tokensOut: number;
  /** Attempts that reported. */
  attempts: number;
}

export interface RunSession {
  runId: string;
  sessionId: string | null;
  cutMidTool: boolean;
  at: number;
}

export interface CostLedger {
  workspace: Spend;
  /** Since the last checkroom session start. */
  session: Spend;
  cells: Record<string, Spend>;
  agents: Record<string, Spend>;
  /** The latest attempt of each cell that named a session (for continue). */
  lastSession: Record<string, RunSession>;
}

export const zeroSpend = (): Spend => ({ costUsd: 0, tokensIn: 0, tokensOut: 0, attempts: 0 });

export const tokensOf = (s: Spend): number => s.tokensIn + s.tokensOut;

const add = (into: Spend, e: AgentFactsEvent | undefined, sign: 1 | -1): Spend => {
  if (!e) return into;
  return {
    costUsd: into.costUsd + sign * (e.costUsd ?? 0),
    tokensIn: into.tokensIn + sign * e.tokensIn,
    tokensOut: into.tokensOut + sign * e.tokensOut,
    attempts: into.attempts + sign,
  };
};

export class CostFold {
  private readonly runs = new Map<string, AgentFactsEvent>();
  /** Runs reported in this session: a report after a restart of a run of the old session still counts there. */
  private readonly sessionRuns = new Set<string>();
  private state: CostLedger = { workspace: zeroSpend(), session: zeroSpend(), cells: {}, agents: {}, lastSession: {} };

  sessionStart(): void {
    this.sessionRuns.clear();
    this.state = { ...this.state, session: zeroSpend() };
  }

  facts(e: AgentFactsEvent): void {
    const prev = this.runs.get(e.runId);
    this.runs.set(e.runId, e);
    const key = cellKey(e.unit, e.step);
    const s = this.state;
    const swap = (v: Spend | undefined): Spend => add(add(v ?? zeroSpend(), prev, -1), e, 1);
    const inSession = !prev || this.sessionRuns.has(e.runId);
    this.sessionRuns.add(e.runId);
    this.state = {
      workspace: swap(s.workspace),
      session: inSession ? swap(s.session) : add(s.session, e, 1),
      cells: { ...s.cells, [key]: swap(s.cells[key]) },
      agents: { ...s.agents, [e.agent]: swap(s.agents[e.agent]) },
      lastSession: e.sessionId ? { ...s.lastSession, [key]: { runId: e.runId, sessionId: e.sessionId, cutMidTool: e.cutMidTool, at: e.at } } : s.lastSession,
    };
  }

  view(): CostLedger {
    return this.state;
  }
}

const usd = (n: number): string => `$${n.toFixed(2)}`;

/** Which budget is used up, in words, or null (a global limit, in money: docs/domain.md, Handling agent faults). */
export const budgetReasonOf = (c: CostLedger, budget: Budget | undefined): string | null => {
  if (!budget) return null;
  const { costUsd, tokens } = budget;
  if (costUsd.session !== null && c.session.costUsd >= costUsd.session) return `cost budget of this session used (${usd(c.session.costUsd)} of ${usd(costUsd.session)}, limits.max_cost_usd)`;
  if (costUsd.workspace !== null && c.workspace.costUsd >= costUsd.workspace) return `cost budget of this workspace used (${usd(c.workspace.costUsd)} of ${usd(costUsd.workspace)}, limits.max_cost_usd.workspace)`;
  if (tokens.session !== null && tokensOf(c.session) >= tokens.session) return `token budget of this session used (${tokensOf(c.session)} of ${tokens.session}, limits.max_tokens)`;
  if (tokens.workspace !== null && tokensOf(c.workspace) >= tokens.workspace) return `token budget of this workspace used (${tokensOf(c.workspace)} of ${tokens.workspace}, limits.max_tokens.workspace)`;
  return null;
};
