import type { FailureClass } from '../pipeline/config-types.js';
import { cellKey } from '../types.js';
import { adapterFor, emptyFacts, type AgentAdapter, type AgentFacts, type ResumeSpec } from './adapters/index.js';
import { readLogFacts } from './adapters/log-facts.js';
import { RETRYABLE } from './classify.js';
import type { Ledger } from './ledger.js';
import type { NewJournalEvent } from './journal.js';
import type { CellTarget } from './launch-spec.js';
import type { ProcessOutcome } from './types.js';

// What the runner does with an agent adapter (issue 11), kept out of supervisor-cell.ts:
// read the stream as it arrives (the "doing now" line, the session id as soon as it is
// seen), read the finished attempt's facts from its log, journal them, and decide whether
// the next attempt continues the interrupted session instead of starting over.

/** Classes after which an attempt was interrupted rather than answered: its session can go on. */
const INTERRUPTED: ReadonlySet<string> = new Set(['STALLED', 'CANCELLED']);

export interface AttemptWatch {
  adapter: AgentAdapter;
  facts: AgentFacts;
  /** Lines as the adapter rendered them when they arrived (bounded like the ring buffer). */
  shown: string[];
}

/** As many rendered lines as the process ring buffer keeps raw ones. */
const SHOWN_LINES = 1000;

const factsEvent = (at: number, runId: string, t: CellTarget, unit: string, f: AgentFacts): NewJournalEvent => ({
  type: 'agent_facts',
  at,
  runId,
  unit,
  step: t.step.id,
  agent: t.agent.name,
  sessionId: f.sessionId,
  costUsd: f.costUsd,
  tokensIn: (f.tokens?.input ?? 0) + (f.tokens?.cacheRead ?? 0) + (f.tokens?.cacheWrite ?? 0),
  tokensOut: f.tokens?.output ?? 0,
  cacheRead: f.tokens?.cacheRead ?? 0,
  cacheWrite: f.tokens?.cacheWrite ?? 0,
  apiRetries: f.apiRetries,
  cutMidTool: f.openToolCall !== null,
});

/**
 * Watch one attempt's lines: facts folded as they come, the session id journalled the moment
 * it is known (a checkroom killed mid-run still leaves it for a later continue). Returns the
 * line to show in the pane, or null.
 */
export const watchLine = (w: AttemptWatch, line: string, onSession: (f: AgentFacts) => void): string | null => {
  const had = w.facts.sessionId;
  w.facts = w.adapter.read(w.facts, line);
  if (had === null && w.facts.sessionId !== null) onSession(w.facts);
  const shown = w.adapter.render(line, w.facts);
  if (shown !== null) {
    w.shown.push(shown);
    // Rendered once, kept bounded: a snapshot every flush must not re-parse a thousand lines.
    if (w.shown.length > SHOWN_LINES * 1.2) w.shown = w.shown.slice(-SHOWN_LINES);
  }
  return shown;
};

export const newWatch = (t: CellTarget): AttemptWatch => ({ adapter: adapterFor(t.agent), facts: emptyFacts(), shown: [] });

export const journalSession = (append: (e: NewJournalEvent) => Promise<void>, now: number, runId: string, t: CellTarget, unit: string, f: AgentFacts): void => {
  append(factsEvent(now, runId, t, unit, f)).catch(() => undefined);
};

/** The finished attempt's facts (from its whole log) and the class they imply, or null. */
export async function concludeAttempt(
  w: AttemptWatch,
  logPath: string,
  outcome: ProcessOutcome,
  markerFound: boolean,
  append: (e: NewJournalEvent) => Promise<void>,
  at: number,
  runId: string,
  t: CellTarget,
  unit: string,
): Promise<{ facts: AgentFacts; fromFacts: FailureClass | null }> {
  if (w.adapter.id === 'command') return { facts: w.facts, fromFacts: null };
  const facts = await readLogFacts(w.adapter, logPath);
  w.facts = facts;
  await append(factsEvent(at, runId, t, unit, facts));
  const cls = w.adapter.classify(facts, outcome, markerFound);
  return { facts, fromFacts: cls === null || cls === 'SUCCESS' || cls === 'CANCELLED' ? null : cls };
}

/** A retryable class waits at least what the stream asked for (retry_delay_ms, retry-after). */
export const honourDelay = (cls: FailureClass, delayMs: number, f: Pick<AgentFacts, 'retryDelayMs'>): number =>
  RETRYABLE.has(cls) && f.retryDelayMs !== null ? Math.max(delayMs, Math.round(f.retryDelayMs)) : delayMs;

/**
 * The session the next attempt of this cell may continue: its last attempt was interrupted
 * (stalled, cancelled, reaped) and named a session, and the adapter can resume. `asked`:
 * the operator chose continue; otherwise only an `on_interrupt: continue` agent does.
 */
export const continueFor = (l: Ledger, t: CellTarget, unit: string, asked: boolean): ResumeSpec | null => {
  if (!adapterFor(t.agent).canResume) return null;
  if (!asked && t.agent.onInterrupt !== 'continue') return null;
  const key = cellKey(unit, t.step.id);
  const last = l.costs.lastSession[key];
  if (!last?.sessionId) return null;
  const cell = l.cells[key];
  const lastAttempt = cell?.attempts[cell.attempts.length - 1];
  // Reaped (checkroom died mid-run): no exit was journalled, the session is still the latest.
  const reaped = !l.liveRuns.some((r) => r.runId === last.runId) && !cell?.attempts.some((a) => a.at >= last.at);
  const interrupted = lastAttempt ? INTERRUPTED.has(lastAttempt.class) && lastAttempt.at >= last.at : reaped;
  if (!interrupted && !asked) return null;
  if (lastAttempt?.class === 'SUCCESS') return null;
  return { sessionId: last.sessionId, halfProduct: t.outputRel };
};

/** A live run as the control room shows it: lines rendered by the adapter, the "doing now" line. */
export const liveAgentView = (w: AttemptWatch | null, raw: string[]): { lines: string[]; activity: string | null; sessionId: string | null; costUsd: number | null } => {
  if (!w || w.adapter.id === 'command') return { lines: raw, activity: null, sessionId: null, costUsd: null };
  return { lines: w.shown.slice(-SHOWN_LINES), activity: w.facts.activity, sessionId: w.facts.sessionId, costUsd: w.facts.costUsd };
};
