import type { FailureClass, FailureRule } from '../pipeline/config-types.js';
import type { ProcessOutcome } from './types.js';

// Classify first, then count (DOMAIN.md section 9): every attempt's outcome becomes exactly
// one class before any budget is touched, so a rate limit never eats the budget of a
// verification failure. The classes and their signs are DOMAIN.md section 8 plus the
// retryable / non-retryable split of section 9.

/** An attempt's verdict. CANCELLED is an operator action, not a fault: it never counts. */
export type AttemptClass = FailureClass | 'SUCCESS' | 'CANCELLED';

export interface ClassifyContext {
  /** The step's completion marker is the last line of its output file (DOMAIN.md section 2). */
  markerFound: boolean;
  /** The agent's configured rules, tried in order before the built-in signs. */
  rules: FailureRule[];
  /** What the agent's own stream says (issue 11: classes from facts, not regexes). */
  fromFacts?: FailureClass | null;
}

/** Faults of the environment, not of the attempt: retrying unchanged can succeed (section 9). */
export const RETRYABLE: ReadonlySet<FailureClass> = new Set<FailureClass>([
  'RATE_LIMITED',
  'OVERLOADED',
  'NETWORK',
  'STALLED',
  'INFRA',
]);

/** Retrying these unchanged gives the same result (section 9): escalate at once. */
export const NEVER_RETRY_UNCHANGED: ReadonlySet<FailureClass> = new Set<FailureClass>([
  'INVALID_INPUT',
  'PERMISSION',
  'TOOL_NOT_FOUND',
]);

interface Sign {
  class: FailureClass;
  test: (text: string, exitCode: number | null) => boolean;
}

const re = (source: RegExp) => (text: string) => source.test(text);

// Order matters: the more specific transient signs come first, so "429 ... permission"
// style mixtures resolve to the class whose recovery is cheapest to try.
const BUILT_IN_SIGNS: Sign[] = [
  { class: 'RATE_LIMITED', test: re(/\b429\b|rate[ -]?limit|too many requests/i) },
  { class: 'OVERLOADED', test: re(/\b529\b|\b503\b|overloaded|\bcapacity\b|service unavailable/i) },
  {
    class: 'NETWORK',
    test: re(/ECONNRESET|ETIMEDOUT|ENOTFOUND|EAI_AGAIN|ECONNREFUSED|socket hang up|\bnetwork\b/i),
  },
  {
    class: 'CONTEXT_EXHAUSTED',
    test: re(/context (?:length|window)|token limit|maximum context|too long|max(?:imum)? tokens/i),
  },
  { class: 'PERMISSION', test: re(/\bEACCES\b|permission denied|\bEPERM\b|operation not permitted/i) },
  {
    class: 'TOOL_NOT_FOUND',
    test: (t, code) => code === 127 || /command not found|spawn \S+ ENOENT|ENOENT.*spawn/i.test(t),
  },
  {
    class: 'INVALID_INPUT',
    test: (t, code) => /invalid argument|unknown option|^\s*usage:/im.test(t) || (code === 2 && /usage/i.test(t)),
  },
  {
    class: 'BROKEN_BUILD',
    test: re(/SyntaxError|build failed|Cannot find module|module not found|compilation (?:error|failed)|ERR_MODULE_NOT_FOUND/i),
  },
];

const ruleMatches = (rule: FailureRule, text: string, exitCode: number | null): boolean => {
  if (rule.match === undefined && rule.exitCode === undefined) return false;
  if (rule.exitCode !== undefined && rule.exitCode !== exitCode) return false;
  if (rule.match === undefined) return true;
  try {
    return new RegExp(rule.match, 'i').test(text);
  } catch {
    // A bad regex in checkroom.yaml must not crash triage; config validation reports it.
    return false;
  }
};

/** Classify one finished attempt. Never throws. */
export const classifyOutcome = (o: ProcessOutcome, ctx: ClassifyContext): AttemptClass => {
  // The marker is the proof of completion (DOMAIN.md section 2), even if a cancel raced it.
  if (o.exitCode === 0 && ctx.markerFound) return 'SUCCESS';
  if (o.cancelled) return 'CANCELLED';
  // Issue 12: the scheduler's word on a cluster fault (node failure, preemption, an image
  // that cannot be pulled) comes before the agent's output: the agent did not fail.
  if (o.infra) return 'INFRA';
  if (o.oomKilled) return 'OOM_KILLED';
  // The idle watchdog and the overall timeout are both liveness faults (section 9).
  if (o.stalled || o.timedOut) return 'STALLED';
  if (o.spawnError === 'ENOENT') return 'TOOL_NOT_FOUND';
  if (o.spawnError === 'EACCES') return 'PERMISSION';
  // The stream's own verdict (an API status, a terminal reason) beats guessing from text.
  if (ctx.fromFacts) return ctx.fromFacts;
  // An agent step that exits 0 without its marker did not prove completion (section 8).
  if (o.exitCode === 0) return 'VERIFICATION_FAILED';
  const text = o.tail.join('\n');
  for (const rule of ctx.rules) {
    if (ruleMatches(rule, text, o.exitCode)) return rule.class;
  }
  for (const sign of BUILT_IN_SIGNS) {
    if (sign.test(text, o.exitCode)) return sign.class;
  }
  return 'UNKNOWN';
};

export interface ClassInfo {
  class: FailureClass;
  signs: string;
  recovery: string;
  /** What happens when the cap is used up. */
  then: string;
  retryable: boolean;
}

/** The error → strategy table (DOMAIN.md sections 8 and 9), as data for the Health view and
 *  the README. Caps live in policy.ts (`strategyTable`) because they are configurable. */
export const CLASS_INFO: Record<FailureClass, ClassInfo> = {
  BROKEN_BUILD: {
    class: 'BROKEN_BUILD',
    signs: 'SyntaxError, build failed, Cannot find module, compilation error',
    recovery: 'roll back the output and retry once with the error',
    then: 'roll back and escalate',
    retryable: false,
  },
  VERIFICATION_FAILED: {
    class: 'VERIFICATION_FAILED',
    signs: 'exit 0 but the completion marker is missing; checks fail',
    recovery: 'fix and retry',
    then: 'skip the cell and escalate',
    retryable: false,
  },
  CIRCULAR_FIX: {
    class: 'CIRCULAR_FIX',
    signs: 'same error 3+ times, or attempts >30% alike (Jaccard) to 2 of the last 3',
    recovery: 'stop; change approach',
    then: 'skip at once and escalate',
    retryable: false,
  },
  CONTEXT_EXHAUSTED: {
    class: 'CONTEXT_EXHAUSTED',
    signs: 'context length, token limit, maximum context, too long',
    recovery: 'compress context and continue',
    then: 'escalate',
    retryable: false,
  },
  UNKNOWN: {
    class: 'UNKNOWN',
    signs: 'nothing else matches',
    recovery: 'retry once more',
    then: 'escalate',
    retryable: false,
  },
  RATE_LIMITED: {
    class: 'RATE_LIMITED',
    signs: '429, rate limit, too many requests',
    recovery: 'back off exponentially with jitter, retry unchanged',
    then: 'escalate',
    retryable: true,
  },
  OVERLOADED: {
    class: 'OVERLOADED',
    signs: '529, 503, overloaded, capacity',
    recovery: 'back off exponentially with jitter, retry unchanged',
    then: 'escalate',
    retryable: true,
  },
  NETWORK: {
    class: 'NETWORK',
    signs: 'ECONNRESET, ETIMEDOUT, ENOTFOUND, EAI_AGAIN, socket hang up',
    recovery: 'back off and retry unchanged',
    then: 'escalate',
    retryable: true,
  },
  STALLED: {
    class: 'STALLED',
    signs: 'no output and no output-file growth for the idle timeout, or overall timeout',
    recovery: 'kill the process group and retry',
    then: 'escalate',
    retryable: true,
  },
  INVALID_INPUT: {
    class: 'INVALID_INPUT',
    signs: 'invalid argument, unknown option, usage:',
    recovery: 'none unchanged: fix the command or input',
    then: 'escalate at once',
    retryable: false,
  },
  PERMISSION: {
    class: 'PERMISSION',
    signs: 'EACCES, EPERM, permission denied',
    recovery: 'none unchanged: fix permissions',
    then: 'escalate at once',
    retryable: false,
  },
  TOOL_NOT_FOUND: {
    class: 'TOOL_NOT_FOUND',
    signs: 'spawn ENOENT, command not found, exit 127',
    recovery: 'none unchanged: install the tool or fix the command',
    then: 'escalate at once',
    retryable: false,
  },
  INFRA: {
    class: 'INFRA',
    signs: 'Slurm NODE_FAIL, PREEMPTED, BOOT_FAIL; pod Unschedulable, ImagePullBackOff',
    recovery: "retry unchanged; counts against the executor's breaker, not the agent's",
    then: 'escalate',
    retryable: true,
  },
  OOM_KILLED: {
    class: 'OOM_KILLED',
    signs: 'the container was OOMKilled (exit 137 for memory)',
    recovery: 'retry once; raise kubernetes.memory if it repeats',
    then: 'escalate',
    retryable: false,
  },
};

export const isFailureClass = (c: AttemptClass): c is FailureClass => c !== 'SUCCESS' && c !== 'CANCELLED';
