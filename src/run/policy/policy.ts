import type { FailureClass, Limits } from '../../pipeline/config/types.js';
import { BUILT_IN_CLASSES, type FailureClasses } from '../../pipeline/failure-classes.js';
import { classInfoOf, type AttemptClass, type ClassInfo } from './classify.js';
import { isCircular } from './circular.js';
import { DEFAULT_CAPS } from '../../pipeline/schema.js';

// What to do after a failed attempt: retry (when, and which attempt of how many) or escalate
// to a human. "Classify first, then count" (docs/domain.md, Handling agent faults): each class has its own
// budget, and every recovery path has a finite cap. Each rule is built from a table of
// classes (`…With(classes)`) and exported bound to the built-in one.

/** What the policy reads of a class table. */
type Classes<C extends string> = Pick<FailureClasses<C>, 'names' | 'rows' | 'defaultCaps' | 'retryable' | 'neverRetryUnchanged'>;

/** One finished attempt of a cell, as the journal records it. */
export interface AttemptRecord<C extends string = FailureClass> {
  /** 1-based attempt number as launched. */
  attempt: number;
  class: AttemptClass<C>;
  /** commandFingerprint of the argv with the {attempt} slot excluded. */
  cmdFp: string;
  /** errorFingerprint of the output tail. */
  errFp: string;
  keywords: string[];
  at: number;
}

/** Total attempts allowed for each class: one table, owned by the config schema. */
export { DEFAULT_CAPS };

/** Configured caps over the defaults. A cap must be a finite count: anything else falls back
 *  to the default, because an unbounded recovery path is the death spiral of docs/domain.md, Handling agent faults. */
export const mergeCapsWith =
  <C extends string>(classes: Pick<Classes<C>, 'names' | 'defaultCaps'>) =>
  (caps: Partial<Record<C, number>> = {}): Record<C, number> => {
    const out = { ...classes.defaultCaps } as Record<C, number>;
    for (const cls of classes.names) {
      const v = caps[cls];
      if (typeof v === 'number' && Number.isFinite(v) && v >= 0) out[cls] = Math.floor(v);
    }
    return out;
  };

export const mergeCaps: (caps?: Partial<Record<FailureClass, number>>) => Record<FailureClass, number> = mergeCapsWith(BUILT_IN_CLASSES);

export type Jitter = 'full' | 'equal';

export type NextAction<C extends string = FailureClass> =
  | { kind: 'retry'; delayMs: number; attempt: number; maxAttempts: number; class: C; reason: string }
  /** `maxAttempts`: the attempt that used the class's cap (the label "attempt 2 of 2"); absent for cap 0. */
  | { kind: 'escalate'; class: C; reason: string; maxAttempts?: number }
  /** Nothing to decide: the last attempt succeeded or the operator cancelled it. */
  | { kind: 'none'; reason: string };

/** The attempts that count now: since the last success, without operator cancels. */
export const currentEpisode = <C extends string = FailureClass>(history: readonly AttemptRecord<C>[]): AttemptRecord<C>[] => {
  let start = 0;
  history.forEach((r, i) => {
    if (r.class === 'SUCCESS') start = i + 1;
  });
  return history.slice(start).filter((r) => r.class !== 'SUCCESS' && r.class !== 'CANCELLED');
};

export interface EffectiveClass<C extends string = FailureClass> {
  class: C;
  /** Why an attempt was re-classed as CIRCULAR_FIX. */
  why?: string;
}

/** The class a loop is re-classed as; every table has it (the loop detector is mechanism, not a row). */
const CIRCULAR = 'CIRCULAR_FIX' satisfies FailureClass;

/** Same command and same error this many times is a no-progress loop (docs/domain.md, Handling agent faults). */
export const FINGERPRINT_REPEATS = 3;

/**
 * Each failure's class after loop detection. Transient classes are never re-classed: for a
 * rate limit, retrying unchanged *is* the recovery, and their own caps bound them. Classes
 * that never retry keep their more telling name.
 */
export const effectiveClassesWith =
  <C extends string>(classes: Pick<Classes<C>, 'retryable' | 'neverRetryUnchanged'>) =>
  (episode: readonly AttemptRecord<C>[]): EffectiveClass<C>[] =>
    episode.map((r, i) => {
      const cls = r.class as C;
      if (classes.retryable.has(cls) || classes.neverRetryUnchanged.has(cls) || cls === CIRCULAR) return { class: cls };
      const before = episode.slice(0, i);
      const repeats = 1 + before.filter((p) => p.cmdFp === r.cmdFp && p.errFp === r.errFp).length;
      if (repeats >= FINGERPRINT_REPEATS) {
        return { class: CIRCULAR as C, why: `same command and same error ${repeats} times` };
      }
      const verdict = isCircular(new Set(r.keywords), before.map((p) => new Set(p.keywords)));
      if (verdict.circular) {
        const pct = verdict.similarities.map((s) => `${Math.round(s * 100)}%`).join(', ');
        return { class: CIRCULAR as C, why: `attempt ${r.attempt} resembles earlier attempts (${pct})` };
      }
      return { class: cls };
    });

export const effectiveClasses: (episode: readonly AttemptRecord[]) => EffectiveClass[] = effectiveClassesWith(BUILT_IN_CLASSES);

/** Failures per effective class in the current episode. */
export const countByClass = (history: readonly AttemptRecord[]): Partial<Record<FailureClass, number>> => {
  const counts: Partial<Record<FailureClass, number>> = {};
  for (const e of effectiveClasses(currentEpisode(history))) counts[e.class] = (counts[e.class] ?? 0) + 1;
  return counts;
};

const finiteOr = (v: number, fallback: number): number => (Number.isFinite(v) && v >= 0 ? v : fallback);

/** Ceiling used when the configured one is not a finite number: a wait must end. */
export const FALLBACK_BACKOFF_MAX_MS = 5 * 60_000;

/**
 * Exponential backoff `base * 2^(n-1)` capped at `max`, with jitter so agents that failed
 * together do not retry together. Equal jitter keeps at least half the delay (a rate limit
 * needs a real pause); full jitter spreads over [0, delay). Always a finite integer.
 */
export const backoffDelay = (n: number, baseMs: number, maxMs: number, rand: () => number, jitter: Jitter = 'equal'): number => {
  const base = finiteOr(baseMs, 0);
  const max = finiteOr(maxMs, FALLBACK_BACKOFF_MAX_MS);
  const exp = Math.min(max, base * 2 ** Math.min(Math.max(n, 1) - 1, 52));
  const r = Math.min(Math.max(finiteOr(rand(), 0), 0), 1);
  const delay = jitter === 'full' ? r * exp : exp / 2 + (r * exp) / 2;
  return Math.min(Math.round(delay), Math.round(exp));
};

export const attemptLabel = (n: number, max: number): string => `attempt ${n} of ${max}`;

const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;

/** Decide what follows the last attempt in `history` (a cell's attempts, oldest first). */
export const decideNextWith =
  <C extends string>(classes: Classes<C>) =>
  (
    history: readonly AttemptRecord<C>[],
    limits: Pick<Limits, 'backoffBaseMs' | 'backoffMaxMs'> & { caps: Partial<Record<C, number>> },
    rand: () => number,
    opts: { jitter?: Jitter } = {},
  ): NextAction<C> => {
    const last = history[history.length - 1];
    if (!last) return { kind: 'none', reason: 'no attempt yet' };
    if (last.class === 'SUCCESS') return { kind: 'none', reason: 'last attempt succeeded' };
    if (last.class === 'CANCELLED') return { kind: 'none', reason: 'cancelled by the operator; not a fault' };

    const effective = effectiveClassesWith(classes)(currentEpisode(history));
    const current = effective[effective.length - 1];
    const cls = current.class;
    const caps = mergeCapsWith(classes)(limits.caps);
    const cap = classes.neverRetryUnchanged.has(cls) ? 0 : caps[cls];
    const count = effective.filter((c) => c.class === cls).length;
    const detail = current.why ? ` (${current.why})` : '';

    // The cap counts attempts, as the source table does ("UNKNOWN 2": retry
    // once); the count is this class's failures in the current episode.
    if (count >= cap) {
      const then = classes.rows.get(cls)?.help.then ?? 'escalate';
      const reason =
        cap === 0
          ? `${cls}${detail}: ${then}`
          : `${cls}${detail}: ${plural(count, 'failed attempt', 'failed attempts')}, cap ${plural(cap, 'attempt', 'attempts')}; ${then}`;
      return cap === 0 ? { kind: 'escalate', class: cls, reason } : { kind: 'escalate', class: cls, reason, maxAttempts: last.attempt };
    }

    const attempt = last.attempt + 1;
    // The attempt at which this class's budget runs out if every retry fails the same way.
    const maxAttempts = last.attempt + cap - count;
    const delayMs = classes.retryable.has(cls)
      ? backoffDelay(count, limits.backoffBaseMs, limits.backoffMaxMs, rand, opts.jitter)
      : Math.round(Math.min(finiteOr(limits.backoffBaseMs, 0), finiteOr(limits.backoffMaxMs, Infinity)));
    const reason = `${cls}${detail}: ${attemptLabel(attempt, maxAttempts)} (cap ${plural(cap, 'attempt', 'attempts')})`;
    return { kind: 'retry', delayMs, attempt, maxAttempts, class: cls, reason };
  };

export const decideNext: (
  history: readonly AttemptRecord[],
  limits: Pick<Limits, 'caps' | 'backoffBaseMs' | 'backoffMaxMs'>,
  rand: () => number,
  opts?: { jitter?: Jitter },
) => NextAction = decideNextWith(BUILT_IN_CLASSES);

export interface StrategyRow<C extends string = FailureClass> extends ClassInfo<C> {
  cap: number;
}

/** The error → strategy table with the caps in force, for the Health view and README. */
export const strategyTableWith =
  <C extends string>(classes: Classes<C>) =>
  (caps: Partial<Record<C, number>> = {}): StrategyRow<C>[] => {
    const merged = mergeCapsWith(classes)(caps);
    const info = classInfoOf(classes);
    return classes.names.map((cls) => ({ ...info[cls], cap: classes.neverRetryUnchanged.has(cls) ? 0 : merged[cls] }));
  };

export const strategyTable: (caps?: Partial<Record<FailureClass, number>>) => StrategyRow[] = strategyTableWith(BUILT_IN_CLASSES);
