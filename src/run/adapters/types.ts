import type { z } from 'zod';
import type { AgentDef } from '../../pipeline/config/types.js';
import type { AgentIssues, RawAgent, SchemaKit } from '../../pipeline/schema.js';
import type { AttemptClass } from '../policy/classify.js';
import type { ProcessOutcome } from '../types.js';

// The adapter seam (STYLE.md "an adapter per agent CLI"; docs/architecture.md, How to add):
// an adapter decides what runs (argv, env) and how its output is read (facts from the
// stream, a class from the facts), and carries its own keys of checkroom.yaml. Where it runs
// is the executor's business, not the adapter's.

/** A registered adapter's id (`adapter:` in checkroom.yaml); the registry holds the list. */
export type AdapterId = string;

/** What an adapter adds to an agent's mapping in checkroom.yaml, kept in the adapter's file. */
export interface AdapterConfig {
  /** Agent keys this adapter reads, built from the kit (the file never loads zod itself). */
  keys?(kit: SchemaKit): Record<string, z.ZodType>;
  /** Rules across the keys of an agent that selects this adapter (a prompt it needs, a command it refuses). */
  check?(a: RawAgent, is: AgentIssues): void;
  /** The resolved agent with this adapter's options: sets `adapter` and its own fields. */
  resolve?(a: RawAgent, agent: AgentDef): AgentDef;
}

export interface TokenCounts {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/** What an agent's own stream says about one attempt. Plain data, bounded. */
export interface AgentFacts {
  sessionId: string | null;
  /** The agent's working directory as it reported it: tool paths are shown relative to it. */
  cwd: string | null;
  /** "Doing now": the last tool call (`Write drafts/ch05-draft.md`), or null. */
  activity: string | null;
  costUsd: number | null;
  tokens: TokenCounts | null;
  /** The agent's own retries (Claude Code's system/api_retry), counted, not hidden. */
  apiRetries: number;
  /** The longest delay the agent was told to wait (retry_delay_ms, retry-after). */
  retryDelayMs: number | null;
  /** The stream's final verdict, when it got that far. */
  result: {
    isError: boolean;
    apiErrorStatus: number | null;
    terminalReason: string | null;
    text: string;
    permissionDenials: number;
    /** What was denied, "Write /abs/path": the PERMISSION message names it. */
    denied: string[];
  } | null;
  /** The agent's error type ("rate_limit", "authentication_failed", "invalid_request"). */
  errorType: string | null;
  /** A tool call started without its result: the stream was cut mid-tool (docs/domain.md, Handling agent faults). */
  openToolCall: string | null;
  /** Lines that looked like JSON but did not parse (torn or over-long). */
  tornLines: number;
}

export const emptyFacts = (): AgentFacts => ({
  sessionId: null,
  cwd: null,
  activity: null,
  costUsd: null,
  tokens: null,
  apiRetries: 0,
  retryDelayMs: null,
  result: null,
  errorType: null,
  openToolCall: null,
  tornLines: 0,
});

/** Values for the placeholders of a command or prompt ({unit}, {output}, …). */
export type PlaceholderValues = Record<string, string>;

/**
 * Continue from a half-product instead of starting fresh (docs/domain.md, Half-products).
 * - resume: the interrupted session goes on (`--resume`).
 * - handoff: a fresh session or process is handed the partial and the last error: the
 *   recovery of CONTEXT_EXHAUSTED ("compress context and continue": the old session is full)
 *   and the only continue a command agent has ({partial}, {backup}, {last_error}).
 */
export interface ResumeSpec {
  mode: 'resume' | 'handoff';
  /** The session to resume; null for a hand-off. */
  sessionId: string | null;
  /** Workspace-relative path of the half-product the agent should complete. */
  halfProduct: string;
  /** Why the last attempt ended (its classified error), for the hand-off prompt. */
  lastError?: string;
}

export interface AdapterCommand {
  argv: string[];
  /** Added over the inherited environment, before the agent's own `env:` (which wins). */
  env: Record<string, string>;
  /** argv indexes left out of the command fingerprint (they change between attempts). */
  volatile: number[];
}

export interface AgentAdapter {
  id: AdapterId;
  /** Build the argv of one attempt; throws a plain Error naming what is wrong in the config. */
  build(agent: AgentDef, values: PlaceholderValues, resume: ResumeSpec | null): AdapterCommand;
  /** Fold one output line into the facts. Pure, never throws, bounded whatever the line. */
  read(facts: AgentFacts, line: string): AgentFacts;
  /** A readable line for the log pane (given the facts so far), or null to leave it out. */
  render(line: string, facts: AgentFacts): string | null;
  /** A class from facts; null when the facts say nothing and the regex rules decide. */
  classify(facts: AgentFacts, outcome: ProcessOutcome, markerFound: boolean): AttemptClass | null;
  /** Whether this adapter can continue a session (`--resume`). */
  canResume: boolean;
  /** Its keys of checkroom.yaml, their rules and how they resolve. */
  config: AdapterConfig;
  /** This adapter bound to one agent's options (jsonl's field paths); absent: the row as it is. */
  forAgent?(agent: AgentDef): AgentAdapter;
}

/** The prompt that continues an interrupted attempt: it names the half-product. */
export const continuePrompt = (resume: ResumeSpec, marker: string): string =>
  resume.mode === 'handoff'
    ? `A previous attempt at this task ended before it finished${resume.lastError ? ` (${resume.lastError})` : ''}, in a session you cannot see. ` +
      `If the file ${resume.halfProduct} exists, it is its half-product: read only what you need of it and complete it where it stops (do not start over). ` +
      `Keep your context small, and make ${marker ? `<!-- ${marker} --> its last line` : 'it complete'} as your last act.`
    : `Your previous attempt was interrupted before it finished. The file ${resume.halfProduct} is a half-product of it. ` +
      `Read it, complete it where it stops (do not start over), and make ${marker ? `<!-- ${marker} --> its last line` : 'it complete'} as your last act.`;
