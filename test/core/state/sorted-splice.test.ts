import { describe, expect, it } from 'vitest';
import { insertSorted, lowerBound, spliceRange } from '../../../src/state/sorted-splice.js';

// One unit's items replaced in a list kept in order (src/state/sorted-splice.ts): the range by
// binary search, a new array only when something changes, a stable insert.

type Row = { k: number; id: string };
const key = (r: Row) => r.k;
const rows = (...ks: number[]): Row[] => ks.map((k, i) => ({ k, id: `${k}.${i}` }));

describe('sorted splice', () => {
  it('lowerBound is the first index whose key is not below, at both ends and between equal keys', () => {
    const a = rows(1, 3, 3, 5);
    expect([0, 1, 2, 3, 4, 5, 6].map((k) => lowerBound(a, key, k))).toEqual([0, 0, 1, 1, 3, 3, 4]);
    expect(lowerBound([], key, 1)).toBe(0);
  });

  it('spliceRange replaces exactly the keys in [from, to) and leaves the input alone', () => {
    const a = rows(1, 3, 3, 5);
    const out = spliceRange(a, key, 3, 4, rows(3));
    expect(out.map((r) => r.k)).toEqual([1, 3, 5]);
    expect(a.map((r) => r.k)).toEqual([1, 3, 3, 5]);
    expect(spliceRange(a, key, 2, 2, rows(2)).map((r) => r.k)).toEqual([1, 2, 3, 3, 5]);
    expect(spliceRange(a, key, 0, 9, []).length).toBe(0);
  });

  it('returns the same array when there is nothing to remove or add (React compares by reference)', () => {
    const a = rows(1, 5);
    expect(spliceRange(a, key, 2, 4, [])).toBe(a);
    expect(spliceRange(a, key, 1, 2, [])).not.toBe(a);
  });

  it('insertSorted puts an item after its equals, as a stable sort would', () => {
    const a = rows(1, 3, 5);
    insertSorted(a, { k: 3, id: 'new' }, (x, y) => x.k - y.k);
    insertSorted(a, { k: 0, id: 'first' }, (x, y) => x.k - y.k);
    insertSorted(a, { k: 9, id: 'last' }, (x, y) => x.k - y.k);
    expect(a.map((r) => r.id)).toEqual(['first', '1.0', '3.1', 'new', '5.2', 'last']);
  });
});
