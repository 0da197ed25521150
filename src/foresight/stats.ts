import type { DurationStat } from './types.js';

// Median and p90 by nearest rank over a handful to a few hundred samples: exact, no interpolation,
// so a test can say what it expects (docs/foresight.md, Durations).

/** Fewer successful attempts of a step than this, and its estimate is not trusted. */
export const MIN_SAMPLES = 3;

const rank = (sorted: readonly number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];

export function statOf(name: string, samples: readonly number[]): DurationStat {
  const sorted = [...samples].sort((a, b) => a - b);
  return { name, count: sorted.length, medianMs: sorted.length ? rank(sorted, 0.5) : 0, p90Ms: sorted.length ? rank(sorted, 0.9) : 0 };
}

export const statsOf = (by: Readonly<Record<string, readonly number[]>>): DurationStat[] =>
  Object.keys(by)
    .sort()
    .map((k) => statOf(k, by[k]));
