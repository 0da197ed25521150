import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isCircular, jaccard } from '../../../../src/run/policy/circular.js';
import { keywords } from '../../../../src/run/policy/fingerprint.js';

// A fixed seed keeps property runs deterministic; a failure prints the seed and path to replay.
fc.configureGlobal({ seed: 20261128, numRuns: 200 });

const set = (...xs: string[]) => new Set(xs);
const word = fc.stringMatching(/^[a-z]{3,8}$/);
const words = fc.uniqueArray(word, { minLength: 0, maxLength: 12 }).map((a) => new Set(a));
const nonEmpty = fc.uniqueArray(word, { minLength: 1, maxLength: 12 }).map((a) => new Set(a));

describe('jaccard', () => {
  it('is symmetric and within [0, 1]', () => {
    fc.assert(
      fc.property(words, words, (a, b) => {
        const s = jaccard(a, b);
        expect(s).toBe(jaccard(b, a));
        expect(s).toBeGreaterThanOrEqual(0);
        expect(s).toBeLessThanOrEqual(1);
      }),
    );
  });
  it('is 1 for identical non-empty sets and 0 for disjoint ones', () => {
    expect(jaccard(set('a1', 'b1'), set('b1', 'a1'))).toBe(1);
    expect(jaccard(set('a1'), set('b1'))).toBe(0);
    expect(jaccard(set('a', 'b', 'c'), set('b', 'c', 'd'))).toBeCloseTo(0.5);
    expect(jaccard(set(), set())).toBe(0);
  });
});

describe('isCircular (DOMAIN.md section 8)', () => {
  it('identical keywords with two or more previous attempts are circular', () => {
    fc.assert(
      fc.property(nonEmpty, fc.integer({ min: 2, max: 6 }), (k, n) => {
        expect(isCircular(k, Array.from({ length: n }, () => new Set(k))).circular).toBe(true);
      }),
    );
  });
  it('disjoint keywords are never circular', () => {
    fc.assert(
      fc.property(nonEmpty, fc.integer({ min: 0, max: 6 }), (k, n) => {
        const prev = Array.from({ length: n }, (_, i) => new Set([...k].map((w) => `${w}x${i}`)));
        expect(isCircular(k, prev).circular).toBe(false);
      }),
    );
  });
  it('one similar previous attempt is not enough', () => {
    const k = set('async', 'await', 'fetch');
    expect(isCircular(k, [set('async', 'await', 'fetch')]).circular).toBe(false);
    expect(isCircular(k, [set('async', 'await', 'fetch'), set('callback', 'promise')]).circular).toBe(false);
  });
  it('looks only at the last three previous attempts', () => {
    const k = set('async', 'await', 'fetch');
    const old = [set('async', 'await', 'fetch'), set('async', 'await', 'fetch')];
    const recent = [set('xhr'), set('callback'), set('stream')];
    const v = isCircular(k, [...old, ...recent]);
    expect(v.similarities).toEqual([0, 0, 0]);
    expect(v.circular).toBe(false);
    expect(isCircular(k, [...recent, ...old]).circular).toBe(true);
  });
  it('needs strictly more than 30%', () => {
    // |∩| = 3, |∪| = 10 → exactly 0.3, not circular.
    const cur = set('a', 'b', 'c', 'd', 'e', 'f', 'g');
    const prev = set('a', 'b', 'c', 'x', 'y', 'z');
    expect(jaccard(cur, prev)).toBeCloseTo(0.3);
    expect(isCircular(cur, [prev, prev]).circular).toBe(false);
    const closer = set('a', 'b', 'c', 'd', 'x', 'y');
    expect(isCircular(cur, [closer, closer]).circular).toBe(true);
  });
  it("flags the source document's example of three async/await attempts", () => {
    const a1 = keywords('Using async await for fetch');
    const a2 = keywords('Using async/await with try-catch');
    const a3 = keywords('Trying async await pattern again');
    const v = isCircular(a3, [a1, a2]);
    expect(v.similarities.every((s) => s > 0.3)).toBe(true);
    expect(v.circular).toBe(true);
  });
});
