import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { editScript, type EditOp } from '../../../src/text/edit-script.js';

// The one line diff behind every diff checkroom shows (src/text/edit-script.ts): the script turns
// a into b, it is a shortest one, and past its bound it says null instead of costing
// quadratic time.

/** b rebuilt from a and the script: every kept line is a's, every added line b's. */
const apply = (a: readonly string[], b: readonly string[], ops: EditOp[]): string[] =>
  ops.flatMap((o) => {
    if (o.kind === '+') return [b[o.b]];
    if (o.kind === ' ') {
      expect(a[o.a]).toBe(b[o.b]);
      return [a[o.a]];
    }
    return [];
  });
const edits = (ops: EditOp[]) => ops.filter((o) => o.kind !== ' ').length;

describe('editScript', () => {
  it('a change in the middle is one removal and one addition around kept lines', () => {
    const ops = editScript(['a', 'b', 'c'], ['a', 'x', 'c'], 10)!;
    expect(ops.map((o) => o.kind).join('')).toBe(' -+ ');
    expect(editScript([], [], 0)).toEqual([]);
    expect(editScript(['a'], [], 1)).toEqual([{ kind: '-', a: 0, b: 0 }]);
  });

  it('past maxEdits differences it gives up with null', () => {
    expect(editScript(['a', 'b', 'c'], ['x', 'y', 'z'], 5)).toBeNull();
    expect(editScript(['a', 'b', 'c'], ['x', 'y', 'z'], 6)).not.toBeNull();
  });

  it('for any pair of line lists the script rebuilds b and is no longer than delete-all-add-all', () => {
    const lines = fc.array(fc.constantFrom('a', 'b', 'c', ''), { maxLength: 12 });
    fc.assert(
      fc.property(lines, lines, (a, b) => {
        const ops = editScript(a, b, a.length + b.length)!;
        expect(apply(a, b, ops)).toEqual(b);
        expect(ops.filter((o) => o.kind !== '+').map((o) => o.a)).toEqual(a.map((_, i) => i));
        expect(edits(ops)).toBeLessThanOrEqual(a.length + b.length);
        // Shortest: a list against itself needs no edit, and one line added needs one.
        expect(edits(editScript(a, a, 0)!)).toBe(0);
        expect(edits(editScript(a, [...a, 'z'], 1)!)).toBe(1);
      }),
    );
  });
});
