// Circular-fix detection, docs/domain.md, Failure classes and their caps exactly: compare the current attempt's
// keywords with each of the last three previous attempts; Jaccard similarity above 30% with
// two or more of them means the attempts are going round in circles.

export const CIRCULAR_THRESHOLD = 0.3;
export const CIRCULAR_WINDOW = 3;
export const CIRCULAR_MIN_MATCHES = 2;

/**
 * |a ∩ b| / |a ∪ b|. Two empty sets give 0, not 1: an attempt with no keywords (a silent
 * stall, an empty tail) carries no evidence of repeating an approach. Repeated silent
 * failures are caught by the fingerprint rule in policy.ts instead.
 */
export const jaccard = (a: ReadonlySet<string>, b: ReadonlySet<string>): number => {
  if (a.size === 0 && b.size === 0) return 0;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let shared = 0;
  for (const k of small) if (large.has(k)) shared++;
  return shared / (a.size + b.size - shared);
};

export interface CircularVerdict {
  circular: boolean;
  /** Similarity with each compared attempt, oldest first (at most three). */
  similarities: number[];
}

export const isCircular = (
  current: ReadonlySet<string>,
  previous: readonly ReadonlySet<string>[],
): CircularVerdict => {
  const similarities = previous.slice(-CIRCULAR_WINDOW).map((p) => jaccard(current, p));
  const matches = similarities.filter((s) => s > CIRCULAR_THRESHOLD).length;
  return { circular: matches >= CIRCULAR_MIN_MATCHES, similarities };
};
