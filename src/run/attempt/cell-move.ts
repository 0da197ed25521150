import type { FailureClass, Limits } from '../../pipeline/config/types.js';
import type { AttemptClass } from '../policy/classify.js';
import { decideNext, type AttemptRecord, type Jitter } from '../policy/policy.js';
import { pausesAutopilot, type RetryStop } from '../policy/retry-stop.js';
import { honourDelay } from '../supervisor/agent.js';
import type { Resources } from '../../pipeline/resources.js';
import { afterOom, oomKillsOf } from '../policy/memory-ladder.js';

// What a cell does after one attempt, as a pure function of plain values:
// runCell runs one attempt (launch, wait, read the marker and the log), asks nextMove, and
// carries the move out. Why a cell stops is a value, not a sentence that callers sniff:
// whether autopilot pauses, which claim the cell gets and whether an escalation is
// journalled are read off its kind. docs/domain.md, Failure classes and their caps; Handling agent faults.

/** Why a cell's attempts end without success. */
export type StopReason =
  /** The operator cancelled: not a fault, so no counter moves. */
  | { kind: 'cancelled' }
  /** A shared long-memory file lost entries: another run would start from the damaged file. */
  | { kind: 'memory_lost'; reason: string }
  /** The policy escalates this class (its cap is used, or it never retries unchanged). */
  | { kind: 'escalated'; class: FailureClass; reason: string; maxAttempts?: number }
  /** The policy has nothing to decide (no failure to count). */
  | { kind: 'undecided'; reason: string }
  /**
   * The death-spiral guard stopped retries; `pauses`: autopilot pauses until a human looks.
   * `maxAttempts`: the budget the policy had granted ("attempt 2 of 4" in the failure), or
   * null when the guard tripped during the backoff (the retry already said it).
   */
  | { kind: 'retries_stopped'; stop: RetryStop; pauses: boolean; maxAttempts: number | null }
  /** No launch of the session's budget is left for the next attempt. */
  | { kind: 'launch_budget'; reason: string }
  /** A process checkroom did not launch holds the output open for writing. */
  | { kind: 'output_held'; reason: string }
  /** A breaker (the agent's, or its executor's infra breaker) will not let the retry through. */
  | { kind: 'breaker'; agent: string; reason: string };

export type Move =
  | { kind: 'done' }
  | { kind: 'retry'; delayMs: number; attempt: number; maxAttempts: number; class: FailureClass; reason: string; note?: string }
  | { kind: 'stop'; reason: StopReason };

export interface MoveInput {
  /** The finished attempt's class. */
  cls: AttemptClass;
  /** Why the shared memory is damaged after it, or null. */
  memoryLoss: string | null;
  /** The cell's attempts as the ledger has them, this one last. */
  history: readonly AttemptRecord[];
  limits: Pick<Limits, 'caps' | 'backoffBaseMs' | 'backoffMaxMs'>;
  rand: () => number;
  /** The delay the agent's stream asked for (retry-after), or null. */
  retryDelayMs: number | null;
  /** Why automatic retries must stop now (retry-stop.ts), or null. */
  retryStop: RetryStop | null;
  jitter?: Jitter;
  /** The step's resources: with a memory ladder, the ladder decides what follows an OOM kill. */
  resources?: Resources;
}

const stop = (reason: StopReason): Move => ({ kind: 'stop', reason });

/** The move after one finished attempt. */
export const nextMove = (i: MoveInput): Move => {
  if (i.memoryLoss !== null) return stop({ kind: 'memory_lost', reason: i.memoryLoss });
  if (i.cls === 'SUCCESS') return { kind: 'done' };
  if (i.cls === 'CANCELLED') return stop({ kind: 'cancelled' });
  const oom = i.cls === 'OOM_KILLED' && i.resources ? afterOom(i.resources, oomKillsOf(i.history)) : null;
  if (oom) return oomMove(i, oom);
  const next = decideNext(i.history, i.limits, i.rand, { jitter: i.jitter });
  if (next.kind === 'escalate') return stop({ kind: 'escalated', class: next.class, reason: next.reason, ...(next.maxAttempts ? { maxAttempts: next.maxAttempts } : {}) });
  if (next.kind === 'none') return stop({ kind: 'undecided', reason: next.reason });
  if (i.retryStop) return stop({ kind: 'retries_stopped', stop: i.retryStop, pauses: pausesAutopilot(i.retryStop), maxAttempts: next.maxAttempts });
  const delayMs = honourDelay(next.class, next.delayMs, { retryDelayMs: i.retryDelayMs });
  return { kind: 'retry', delayMs, attempt: next.attempt, maxAttempts: next.maxAttempts, class: next.class, reason: next.reason };
};

/** An OOM kill under a memory ladder: one step up (the command changed, so no cap or loop
 *  detector counts it), or the top reached: escalate (docs/scale-out.md, Resources). */
const oomMove = (i: MoveInput, oom: NonNullable<ReturnType<typeof afterOom>>): Move => {
  if (oom.kind === 'top') return stop({ kind: 'escalated', class: 'OOM_KILLED', reason: oom.reason });
  const attempt = (i.history[i.history.length - 1]?.attempt ?? 0) + 1;
  const maxAttempts = attempt + oom.left - 1;
  if (i.retryStop) return stop({ kind: 'retries_stopped', stop: i.retryStop, pauses: pausesAutopilot(i.retryStop), maxAttempts });
  return { kind: 'retry', delayMs: Math.round(Math.max(0, i.limits.backoffBaseMs)), attempt, maxAttempts, class: 'OOM_KILLED', reason: oom.reason, note: oom.reason };
};

/**
 * After the backoff: cancelled (the wait was cut short), or a guard that tripped meanwhile.
 * A guard hit while waiting does not pause autopilot again: the attempt that hit it did.
 */
export const stopAfterBackoff = (woke: boolean, late: RetryStop | null): StopReason | null => {
  if (!woke) return { kind: 'cancelled' };
  return late ? { kind: 'retries_stopped', stop: late, pauses: false, maxAttempts: null } : null;
};

/** After waiting for a breaker: a cancel during the wait wins over what the breaker said. */
export const stopAfterBreaker = (cancelled: boolean, agent: string, blocked: string | null): StopReason | null => {
  if (cancelled) return { kind: 'cancelled' };
  return blocked ? { kind: 'breaker', agent, reason: blocked } : null;
};

export interface StopEffect {
  claim: 'failed' | 'needs_human' | 'cancelled';
  /** Journalled as an escalation of this class. */
  escalate: FailureClass | null;
  /** The class the failure is reported as, when not the attempt's own. */
  reportAs: FailureClass | null;
}

/** What the cell's checkpoint claim becomes, and whether the stop is journalled as an escalation. */
export const stopEffect = (s: StopReason): StopEffect => {
  switch (s.kind) {
    case 'cancelled':
      return { claim: 'cancelled', escalate: null, reportAs: null };
    case 'memory_lost':
      // The attempt may have exited 0: what failed is the check of the memory's entries.
      return { claim: 'needs_human', escalate: 'VERIFICATION_FAILED', reportAs: 'VERIFICATION_FAILED' };
    case 'escalated':
      // Reported as the class it escalated as: a third identical UNKNOWN is
      // CIRCULAR_FIX in the journal, so in the `failed` event, the status line and `watch` too.
      return { claim: 'needs_human', escalate: s.class, reportAs: s.class };
    default:
      return { claim: 'failed', escalate: null, reportAs: null };
  }
};

/** The stop in words, for the operator (the `failed` event, the run result). */
export const stopWords = (s: StopReason): string => {
  switch (s.kind) {
    case 'cancelled':
      return 'cancelled by the operator';
    case 'retries_stopped':
      return `retries stopped: ${s.stop.reason}`;
    default:
      return s.reason;
  }
};
