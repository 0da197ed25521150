// A small seeded generator for the property tests of issue 18 item 2 (fast-check is not
// installed here): mulberry32, so a case is rebuilt exactly from the seed a failure prints.

export interface Rand {
  readonly seed: number;
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [lo, hi], both included. */
  int(lo: number, hi: number): number;
  /** True with probability p. */
  chance(p: number): boolean;
  pick<T>(xs: readonly T[]): T;
  /** A sample of `n` distinct items, in the list's order. */
  some<T>(xs: readonly T[], n: number): T[];
}

export function rand(seed: number): Rand {
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo: number, hi: number): number => lo + Math.floor(next() * (hi - lo + 1));
  return {
    seed,
    next,
    int,
    chance: (p) => next() < p,
    pick: (xs) => xs[int(0, xs.length - 1)],
    some: (xs, n) => {
      const idx = xs.map((_, i) => i);
      for (let i = idx.length - 1; i > 0; i--) {
        const j = int(0, i);
        [idx[i], idx[j]] = [idx[j], idx[i]];
      }
      return idx
        .slice(0, Math.min(n, xs.length))
        .sort((x, y) => x - y)
        .map((i) => xs[i]);
    },
  };
}

/** The seeds of a run: CHECKROOM_SEED replays one case; otherwise `count` seeds from a base. */
export function seedsOf(count: number, base = 0x18_02): number[] {
  const one = process.env.CHECKROOM_SEED;
  if (one) return [Number(one)];
  const n = Number(process.env.CHECKROOM_CASES ?? count);
  return Array.from({ length: n }, (_, i) => (base + i * 7919) >>> 0);
}
