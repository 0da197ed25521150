import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { diffLines, unifiedDiff } from '../../../src/checkpoint/line-diff.js';

// The rewrite preview's line diff (issue 17 item 2): the script rebuilds both files, and the
// unified hunks, applied to the old file, give the new one.

const lines = fc.array(fc.constantFrom('a', 'b', 'c', '| ch01 | ✅ |', '', '> 备注'), { maxLength: 30 });

/** Apply unified hunks to `before` (a tiny patch, enough to check ours). */
function patch(before: string[], hunks: string[]): string[] {
  const out: string[] = [];
  let at = 0;
  for (const h of hunks) {
    const m = /^@@ -(\d+),(\d+) \+\d+,\d+ @@$/.exec(h);
    if (m) {
      const start = Number(m[2]) === 0 ? Number(m[1]) : Number(m[1]) - 1;
      while (at < start) out.push(before[at++]);
      continue;
    }
    if (h[0] === ' ') {
      expect(before[at]).toBe(h.slice(1));
      out.push(before[at++]);
    } else if (h[0] === '-') {
      expect(before[at]).toBe(h.slice(1));
      at++;
    } else out.push(h.slice(1));
  }
  while (at < before.length) out.push(before[at++]);
  return out;
}

describe('line diff', () => {
  it('its script rebuilds both sides, and the hunks patch the old text into the new', () => {
    fc.assert(
      fc.property(lines, lines, (a, b) => {
        const ops = diffLines(a, b);
        expect(ops.filter((o) => o.op !== '+').map((o) => o.text)).toEqual(a);
        expect(ops.filter((o) => o.op !== '-').map((o) => o.text)).toEqual(b);
        const text = (xs: string[]) => xs.map((x) => `${x}\n`).join('');
        expect(patch(a, unifiedDiff(text(a), text(b)))).toEqual(b);
      }),
      { numRuns: 300 },
    );
  });

  it('is empty for equal texts and shows one changed line with its context', () => {
    expect(unifiedDiff('a\r\nb\r\n', 'a\r\nb\r\n')).toEqual([]);
    expect(unifiedDiff('1\n2\n3\n4\n5\n6\n', '1\n2\n3\nX\n5\n6\n', 1)).toEqual(['@@ -3,3 +3,3 @@', ' 3', '-4', '+X', ' 5']);
  });

  it('stays exact past the bound on differences (the middle is removed, then added)', () => {
    const a = Array.from({ length: 1500 }, (_, i) => `a${i}`);
    const b = Array.from({ length: 1500 }, (_, i) => `b${i}`);
    const ops = diffLines(a, b);
    expect(ops.filter((o) => o.op !== '+').map((o) => o.text)).toEqual(a);
    expect(ops.filter((o) => o.op !== '-').map((o) => o.text)).toEqual(b);
  });
});
