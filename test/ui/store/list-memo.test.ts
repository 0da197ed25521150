import { describe, expect, it } from 'vitest';
import { mapByDelta } from '../../../src/ui/store/list-memo.js';

// Issue 18 item 6: a marker changes one unit's items in the middle of the Partials and Plan
// lists; the lists and their keys after it are made from the ones before, mapping only the
// changed middle (at 100k files, ~20k items were wrapped and keyed again on every change).

const items = (n: number) => Array.from({ length: n }, (_, i) => ({ i }));

describe('mapByDelta', () => {
  it('maps only what changed between the shared start and end, and equals a full map', () => {
    const prev = items(1000);
    const out = prev.map((x) => `k${x.i}`);
    const next = [...prev.slice(0, 400), { i: -1 }, { i: -2 }, ...prev.slice(401)];
    const seen: number[] = [];
    const got = mapByDelta(prev, out, next, (x) => (seen.push(x.i), `k${x.i}`));
    expect(got).toEqual(next.map((x) => `k${x.i}`));
    expect(seen).toEqual([-1, -2]);
  });

  it('handles items removed, added at either end, and a list with repeated objects', () => {
    const prev = items(10);
    const out = prev.map((x) => x.i);
    const f = (x: { i: number }) => x.i;
    for (const next of [prev.slice(1), prev.slice(0, -1), [{ i: 99 }, ...prev], [...prev, { i: 99 }], [], [prev[0], prev[0], prev[0]], prev]) {
      expect(mapByDelta(prev, out, next, f)).toEqual(next.map(f));
    }
    expect(mapByDelta(null, null, prev, f)).toEqual(out);
  });
});
