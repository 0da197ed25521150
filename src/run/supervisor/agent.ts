import type { FailureClass } from '../../pipeline/config/types.js';
import { existsSync } from 'node:fs';
import { cellKey } from '../../types.js';
import { adapterFor, emptyFacts, type AgentAdapter, type AgentFacts, type ResumeSpec } from '../adapters/index.js';
import { readLogFacts } from '../adapters/log-facts.js';
import { RETRYABLE } from '../policy/classify.js';
import type { Ledger } from '../journal/ledger.js';
import type { NewJournalEvent } from '../journal/journal.js';
import type { CellTarget } from '../attempt/launch-spec.js';
import type { ProcessOutcome } from '../types.js';

// What the runner does with an agent adapter (docs/agents.md, Adapters), kept out of supervisor-cell.ts:
// read the stream as it arrives (the "doing now" line, the session id as soon as it is
// seen), read the finished attempt's facts from its log, journal them, and decide whether
// the next attempt continues the interrupted session instead of starting over.

/** The half-product is on disk (a hand-off gives it to the next attempt). */
const hasPartial = (t: CellTarget): boolean => existsSync(t.outputAbs);

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

/** Whether a non-resuming agent can be handed a partial: its command names {partial} or {backup}. */
export const takesPartial = (t: CellTarget): boolean =>
  (t.agent.cli?.prompt !== undefined && t.agent.cli?.prompt !== null) || t.agent.command.some((el) => /\{(?:partial|backup)\}/.test(el));

/**
 * How the next attempt of this cell continues from its half-product, or null to start over
 * (docs/domain.md, Half-products). One decision for keys (`C`), autopilot and `run`:
 * - the last attempt was interrupted (stalled, cancelled, reaped) and named a session the
 *   adapter can resume: resume it (`asked`: the operator chose continue; otherwise only an
 *   `on_interrupt: continue` agent does);
 * - the last attempt ran out of context: a hand-off, whoever asks — a resumed session would
 *   be just as full (the class's recovery is "compress context and continue");
 * - an agent that cannot resume but takes the partial ({partial} or {backup} in its command):
 *   a hand-off when asked, or after an interruption under `on_interrupt: continue`.
 * A hand-off needs the half-product on disk; without it the attempt starts over.
 */
export const continueFor = (l: Ledger, t: CellTarget, unit: string, asked: boolean, partialExists = hasPartial(t)): ResumeSpec | null => {
  const key = cellKey(unit, t.step.id);
  const cell = l.cells[key];
  const lastAttempt = cell?.attempts[cell.attempts.length - 1];
  if (lastAttempt?.class === 'SUCCESS') return null;
  const handoff = (): ResumeSpec | null =>
    partialExists && takesPartial(t) ? { mode: 'handoff', sessionId: null, halfProduct: t.outputRel, lastError: cell?.lastError ?? '' } : null;
  // A prompt-driven agent is handed the task afresh even with nothing on disk: repeating the
  // argv would only run out of context again (and be called circular).
  if (lastAttempt?.class === 'CONTEXT_EXHAUSTED') return t.agent.cli?.prompt ? { mode: 'handoff', sessionId: null, halfProduct: t.outputRel, lastError: cell?.lastError ?? '' } : handoff();
  const canResume = adapterFor(t.agent).canResume;
  const last = l.costs.lastSession[key];
  // Stopped by the account's quota (docs/quota.md): the session goes on at the reset, for
  // whoever launches it; an agent that cannot resume is handed its partial, or starts over.
  if (cell?.quota) return canResume && last?.sessionId ? { mode: 'resume', sessionId: last.sessionId, halfProduct: t.outputRel } : handoff();
  if (!asked && t.agent.onInterrupt !== 'continue') return null;
  if (canResume && last?.sessionId) {
    // Reaped (checkroom died mid-run): no exit was journalled, the session is still the latest.
    const reaped = !l.liveRuns.some((r) => r.runId === last.runId) && !cell?.attempts.some((a) => a.at >= last.at);
    const interrupted = lastAttempt ? INTERRUPTED.has(lastAttempt.class) && lastAttempt.at >= last.at : reaped;
    if (interrupted || asked) return { mode: 'resume', sessionId: last.sessionId, halfProduct: t.outputRel };
    return null;
  }
  const interrupted = lastAttempt ? INTERRUPTED.has(lastAttempt.class) : false;
  return interrupted || asked ? handoff() : null;
};

/** A live run as the control room shows it: lines rendered by the adapter, the "doing now" line. */
export const liveAgentView = (w: AttemptWatch | null, raw: string[]): { lines: string[]; activity: string | null; sessionId: string | null; costUsd: number | null } => {
  if (!w || w.adapter.id === 'command') return { lines: raw, activity: null, sessionId: null, costUsd: null };
  return { lines: w.shown.slice(-SHOWN_LINES), activity: w.facts.activity, sessionId: w.facts.sessionId, costUsd: w.facts.costUsd };
};
