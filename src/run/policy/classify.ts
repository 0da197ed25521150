import type { FailureClass, FailureRule } from '../../pipeline/config/types.js';
import { BUILT_IN_CLASSES, type FailureClasses } from '../../pipeline/failure-classes.js';
import type { ProcessOutcome } from '../types.js';
import { tryPattern } from '../../pipeline/safe-pattern.js';

// Classify first, then count (docs/domain.md, Handling agent faults): every attempt's outcome becomes exactly
// one class before any budget is touched, so a rate limit never eats the budget of a
// verification failure. The classes, their signs and their help text are rows of one table
// (src/pipeline/failure-classes.ts); everything here derives from it.

/** An attempt's verdict. CANCELLED is an operator action, not a fault: it never counts. */
export type AttemptClass<C extends string = FailureClass> = C | 'SUCCESS' | 'CANCELLED';

export interface ClassifyContext<C extends string = FailureClass> {
  /** The step's completion marker is the last line of its output file (docs/domain.md, The reference pipeline). */
  markerFound: boolean;
  /** The agent's configured rules, tried in order before the built-in signs. */
  rules: (Omit<FailureRule, 'class'> & { class: C })[];
  /** What the agent's own stream says (classes from facts, not regexes). */
  fromFacts?: C | null;
}

/** Faults of the environment, not of the attempt: retrying unchanged can succeed (docs/domain.md, Handling agent faults). */
export const RETRYABLE: ReadonlySet<FailureClass> = BUILT_IN_CLASSES.retryable;

/** Retrying these unchanged gives the same result: escalate at once. */
export const NEVER_RETRY_UNCHANGED: ReadonlySet<FailureClass> = BUILT_IN_CLASSES.neverRetryUnchanged;

const ruleMatches = (rule: Omit<FailureRule, 'class'>, text: string, exitCode: number | null): boolean => {
  if (rule.match === undefined && rule.exitCode === undefined) return false;
  if (rule.exitCode !== undefined && rule.exitCode !== exitCode) return false;
  if (rule.match === undefined) return true;
  // Agent output is hostile text and the rule is config: RE2, linear in the output. A pattern RE2 refuses must not crash triage; config validation reports it.
  return tryPattern(rule.match, 'i')?.test(text) ?? false;
};

/**
 * The classifier of a table of classes: process facts first (they name built-in classes),
 * then the agent's rules, then the table's signs in their order. Never throws.
 */
export const classifierFor =
  <C extends string>(classes: Pick<FailureClasses<C>, 'signs'>) =>
  (o: ProcessOutcome, ctx: ClassifyContext<C>): AttemptClass<C | FailureClass> => {
    // The marker is the proof of completion (docs/domain.md, The reference pipeline), even if a cancel raced it.
    if (o.exitCode === 0 && ctx.markerFound) return 'SUCCESS';
    if (o.cancelled) return 'CANCELLED';
    // The scheduler's word on a cluster fault (node failure, preemption, an image
    // that cannot be pulled) comes before the agent's output: the agent did not fail.
    if (o.infra) return 'INFRA';
    if (o.oomKilled) return 'OOM_KILLED';
    // The idle watchdog and the overall timeout are both liveness faults (docs/domain.md, Handling agent faults).
    if (o.stalled || o.timedOut) return 'STALLED';
    if (o.spawnError === 'ENOENT') return 'TOOL_NOT_FOUND';
    if (o.spawnError === 'EACCES') return 'PERMISSION';
    // The stream's own verdict (an API status, a terminal reason) beats guessing from text.
    if (ctx.fromFacts) return ctx.fromFacts;
    // An agent step that exits 0 without its marker did not prove completion (docs/domain.md, Failure classes and their caps).
    if (o.exitCode === 0) return 'VERIFICATION_FAILED';
    const text = o.tail.join('\n');
    for (const rule of ctx.rules) {
      if (ruleMatches(rule, text, o.exitCode)) return rule.class;
    }
    for (const sign of classes.signs) {
      if (sign.test(text, o.exitCode)) return sign.class;
    }
    return 'UNKNOWN';
  };

/** Classify one finished attempt by the built-in table. Never throws. */
export const classifyOutcome: (o: ProcessOutcome, ctx: ClassifyContext) => AttemptClass = classifierFor(BUILT_IN_CLASSES);

export interface ClassInfo<C extends string = FailureClass> {
  class: C;
  signs: string;
  recovery: string;
  /** What happens when the cap is used up. */
  then: string;
  retryable: boolean;
}

/** A table's error → strategy rows (docs/domain.md, Failure classes and their caps; Handling agent faults), keyed by class, in table order. */
export const classInfoOf = <C extends string>(classes: Pick<FailureClasses<C>, 'rows' | 'retryable'>): Record<C, ClassInfo<C>> =>
  Object.fromEntries([...classes.rows.values()].map((r) => [r.name, { class: r.name, ...r.help, retryable: classes.retryable.has(r.name) }])) as Record<C, ClassInfo<C>>;

/** The error → strategy table (docs/domain.md, Failure classes and their caps; Handling agent faults), as data for the Health view and
 *  the README. Caps live in policy.ts (`strategyTable`) because they are configurable. */
export const CLASS_INFO: Record<FailureClass, ClassInfo> = classInfoOf(BUILT_IN_CLASSES);
