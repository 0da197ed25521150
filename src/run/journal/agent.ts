// Journal events of agent adapters, kept apart from journal.ts so the seam is one
// block there. They are what makes money, tokens and sessions survive a restart: the ledger
// folds them like every other event.

interface AgentBase {
  v: 1;
  at: number;
}

/** What an attempt's own stream said: its session, cost and tokens. Written at its exit. */
export interface AgentFactsEvent extends AgentBase {
  type: 'agent_facts';
  runId: string;
  unit: string;
  step: string;
  agent: string;
  sessionId: string | null;
  costUsd: number | null;
  tokensIn: number;
  tokensOut: number;
  cacheRead: number;
  cacheWrite: number;
  /** The agent's own retries inside the attempt (Claude Code's api_retry events). */
  apiRetries: number;
  /** A tool call was cut before its result (mid-tool-arguments or mid-execution). */
  cutMidTool: boolean;
}

/** The next attempt continues a session instead of starting over (docs/domain.md, Half-products). */
export interface ContinueEvent extends AgentBase {
  type: 'continue';
  unit: string;
  step: string;
  /** The resumed session; null for a hand-off (a fresh attempt given the partial). */
  sessionId: string | null;
  /** Workspace-relative half-product the continue prompt names. */
  halfProduct: string;
  by: 'operator' | 'policy';
  /** resume: the session goes on; handoff: a fresh attempt given the partial. Absent: resume. */
  mode?: 'resume' | 'handoff';
  /** A hand-off's copy of the partial, kept before the attempt may change it. */
  backup?: string;
}

export type AgentJournalEvent = AgentFactsEvent | ContinueEvent;

export const AGENT_EVENT_FIELDS = {
  agent_facts: { runId: 's', unit: 's', step: 's', agent: 's', sessionId: 's?', costUsd: 'n?', tokensIn: 'n', tokensOut: 'n', cacheRead: 'n', cacheWrite: 'n', apiRetries: 'n', cutMidTool: 'b' },
  continue: { unit: 's', step: 's', sessionId: 's?', halfProduct: 's', by: 's' },
} as const;
