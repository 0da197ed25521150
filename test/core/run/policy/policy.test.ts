import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FailureClass } from '../../../../src/pipeline/config/types.js';
import type { AttemptClass } from '../../../../src/run/policy/classify.js';
import {
  DEFAULT_CAPS,
  attemptLabel,
  backoffDelay,
  countByClass,
  decideNext,
  mergeCaps,
  strategyTable,
  type AttemptRecord,
} from '../../../../src/run/policy/policy.js';

// A fixed seed keeps property runs deterministic; a failure prints the seed and path to replay.
fc.configureGlobal({ seed: 20261128, numRuns: 200 });

const limits = { caps: {}, backoffBaseMs: 1000, backoffMaxMs: 60_000 };
const seq = (...values: number[]) => {
  let i = 0;
  return () => values[i++ % values.length];
};

let kwCounter = 0;
/** A failure with its own command/error fingerprint and unrelated keywords unless given. */
const rec = (attempt: number, cls: AttemptClass, over: Partial<AttemptRecord> = {}): AttemptRecord => {
  kwCounter++;
  return {
    attempt,
    class: cls,
    cmdFp: 'cmd',
    errFp: `err${kwCounter}`,
    keywords: [`word${kwCounter}a`, `word${kwCounter}b`],
    at: attempt * 1000,
    ...over,
  };
};
const history = (...classes: AttemptClass[]) => classes.map((c, i) => rec(i + 1, c));

describe('caps', () => {
  it('defaults follow DOMAIN.md section 8 and every cap is finite', () => {
    expect(DEFAULT_CAPS.BROKEN_BUILD).toBe(1);
    expect(DEFAULT_CAPS.VERIFICATION_FAILED).toBe(3);
    expect(DEFAULT_CAPS.CIRCULAR_FIX).toBe(0);
    expect(DEFAULT_CAPS.UNKNOWN).toBe(2);
    for (const v of Object.values(DEFAULT_CAPS)) expect(Number.isFinite(v)).toBe(true);
  });
  it('configured caps override defaults; invalid values fall back', () => {
    const caps = mergeCaps({ UNKNOWN: 5, NETWORK: Infinity, STALLED: -1, OVERLOADED: 2.7 });
    expect(caps.UNKNOWN).toBe(5);
    expect(caps.NETWORK).toBe(DEFAULT_CAPS.NETWORK);
    expect(caps.STALLED).toBe(DEFAULT_CAPS.STALLED);
    expect(caps.OVERLOADED).toBe(2);
  });
  it('strategy table has a row per class with the cap in force', () => {
    const rows = strategyTable({ UNKNOWN: 7, PERMISSION: 3 });
    expect(rows).toHaveLength(14);
    expect(rows.find((r) => r.class === 'UNKNOWN')?.cap).toBe(7);
    expect(rows.find((r) => r.class === 'PERMISSION')?.cap).toBe(0);
  });
});

describe('decideNext: counting per class', () => {
  it.each<[FailureClass, number]>([
    // Issue 17 item 5: caps count attempts in all, as the source table does (UNKNOWN 2 =
    // retry once). This test said "UNKNOWN retries 2 times", one attempt over the table.
    ['UNKNOWN', 2],
    ['VERIFICATION_FAILED', 3],
    ['BROKEN_BUILD', 1],
    ['RATE_LIMITED', 5],
    ['STALLED', 3],
  ])('%s runs %i attempts in all, then escalates', (cls, cap) => {
    for (let n = 1; n < cap; n++) {
      const d = decideNext(history(...Array(n).fill(cls)), limits, seq(0.5));
      expect(d).toMatchObject({ kind: 'retry', attempt: n + 1, maxAttempts: cap });
    }
    const d = decideNext(history(...Array(cap).fill(cls)), limits, seq(0.5));
    expect(d).toMatchObject({ kind: 'escalate', class: cls });
  });

  it('CIRCULAR_FIX (cap 0) escalates at once', () => {
    expect(decideNext(history('CIRCULAR_FIX'), limits, seq(0.5))).toMatchObject({ kind: 'escalate', class: 'CIRCULAR_FIX' });
  });

  it.each<FailureClass>(['INVALID_INPUT', 'PERMISSION', 'TOOL_NOT_FOUND'])('%s escalates at once, even with a cap configured', (cls) => {
    const d = decideNext(history(cls), { ...limits, caps: { [cls]: 5 } }, seq(0.5));
    expect(d).toMatchObject({ kind: 'escalate', class: cls });
  });

  it('a rate limit does not eat the verification budget', () => {
    const h = history('VERIFICATION_FAILED', 'RATE_LIMITED', 'RATE_LIMITED', 'VERIFICATION_FAILED', 'RATE_LIMITED');
    const d = decideNext(h, limits, seq(0.5));
    expect(d.kind).toBe('retry');
    expect(countByClass(h)).toEqual({ VERIFICATION_FAILED: 2, RATE_LIMITED: 3 });
    expect(decideNext([...h, rec(6, 'VERIFICATION_FAILED')], limits, seq(0.5))).toMatchObject({ kind: 'escalate', class: 'VERIFICATION_FAILED' });
  });

  it('cancelled attempts count for nothing, and a success starts a new episode', () => {
    const h = history('UNKNOWN', 'CANCELLED', 'UNKNOWN', 'CANCELLED');
    expect(decideNext(h, limits, seq(0.5))).toMatchObject({ kind: 'none' });
    expect(decideNext(h.slice(0, 1), limits, seq(0.5)).kind).toBe('retry');
    expect(countByClass(h.slice(0, 3))).toEqual({ UNKNOWN: 2 });
    const after = history('UNKNOWN', 'UNKNOWN', 'SUCCESS', 'UNKNOWN');
    expect(decideNext(after, limits, seq(0.5)).kind).toBe('retry');
    expect(countByClass(after)).toEqual({ UNKNOWN: 1 });
  });

  it('reports the attempt number and the attempt at which the budget runs out', () => {
    const d = decideNext(history('VERIFICATION_FAILED'), limits, seq(0.5));
    // Issue 17 item 5: it said "of 4" for a class the source table allows 3 attempts.
    expect(d).toMatchObject({ kind: 'retry', attempt: 2, maxAttempts: 3 });
    if (d.kind === 'retry') expect(d.reason).toContain(attemptLabel(2, 3));
    expect(attemptLabel(2, 3)).toBe('attempt 2 of 3');
  });
});

describe('decideNext: circular fix', () => {
  it('similar keywords in 2 of the last 3 attempts escalate as CIRCULAR_FIX at once', () => {
    const kw = ['renderoutline', 'sections', 'undefined', 'properties'];
    const h = [rec(1, 'UNKNOWN', { keywords: kw }), rec(2, 'VERIFICATION_FAILED', { keywords: kw }), rec(3, 'VERIFICATION_FAILED', { keywords: [...kw, 'extra'] })];
    const d = decideNext(h, limits, seq(0.5));
    expect(d).toMatchObject({ kind: 'escalate', class: 'CIRCULAR_FIX' });
    if (d.kind === 'escalate') expect(d.reason).toMatch(/resembles/);
  });

  it('the same command and error fingerprint three times is CIRCULAR_FIX', () => {
    const same = { cmdFp: 'c1', errFp: 'e1', keywords: [] };
    const h = [rec(1, 'VERIFICATION_FAILED', same), rec(2, 'VERIFICATION_FAILED', same)];
    expect(decideNext(h, limits, seq(0.5)).kind).toBe('retry');
    const d = decideNext([...h, rec(3, 'VERIFICATION_FAILED', same)], limits, seq(0.5));
    expect(d).toMatchObject({ kind: 'escalate', class: 'CIRCULAR_FIX' });
    if (d.kind === 'escalate') expect(d.reason).toContain('same command and same error 3 times');
  });

  it('a changed command is not a loop', () => {
    const h = [1, 2, 3].map((n) => rec(n, 'VERIFICATION_FAILED', { cmdFp: `c${n}`, errFp: 'e1', keywords: [] }));
    expect(decideNext(h.slice(0, 2), limits, seq(0.5)).kind).toBe('retry');
    // The third is the class's own cap, not a loop.
    expect(decideNext(h, limits, seq(0.5))).toMatchObject({ kind: 'escalate', class: 'VERIFICATION_FAILED' });
  });

  it('transient classes are not re-classed: identical rate limits use their own cap', () => {
    const same = { cmdFp: 'c1', errFp: 'e1', keywords: ['rate', 'limit', 'exceeded'] };
    const h = [1, 2, 3, 4].map((n) => rec(n, 'RATE_LIMITED', same));
    expect(decideNext(h, limits, seq(0.5))).toMatchObject({ kind: 'retry', class: 'RATE_LIMITED' });
  });
});

describe('backoff', () => {
  it('grows exponentially for retryable classes and stays under the cap', () => {
    const delays = [1, 2, 3, 4].map((n) => {
      const d = decideNext(history(...Array(n).fill('OVERLOADED')), limits, seq(0.999999), { jitter: 'full' });
      return d.kind === 'retry' ? d.delayMs : -1;
    });
    expect(delays).toEqual([1000, 2000, 4000, 8000]);
  });

  it('non-retryable capped classes wait the short fixed delay', () => {
    const d = decideNext(history('UNKNOWN'), limits, seq(0.1));
    expect(d).toMatchObject({ kind: 'retry', delayMs: 1000 });
  });

  it('jitter stays in range, is capped and finite for any attempt and random value', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2000 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.integer({ min: 0, max: 100_000 }),
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.constantFrom<'full' | 'equal'>('full', 'equal'),
        (n, r, base, max, jitter) => {
          const d = backoffDelay(n, base, max, () => r, jitter);
          // 2^(n-1) overflows to Infinity for large n (0 * Infinity is NaN): the exponent is bounded.
          const exp = Math.min(max, base * 2 ** Math.min(n - 1, 52));
          expect(Number.isFinite(d)).toBe(true);
          expect(d).toBeGreaterThanOrEqual(jitter === 'equal' ? Math.floor(exp / 2) : 0);
          expect(d).toBeLessThanOrEqual(Math.round(Math.min(max, exp)));
        },
      ),
    );
  });

  it('survives a broken random source and broken limits', () => {
    expect(backoffDelay(3, 1000, 60_000, () => NaN)).toBe(2000);
    expect(backoffDelay(3, 1000, Infinity, () => 2)).toBe(4000);
    expect(backoffDelay(3, NaN, 10, () => 0.5)).toBe(0);
  });
});
