import { describe, expect, it } from 'vitest';
import { diffLines } from '../../../src/backups/backups.js';
import { sideBySide, sideColumn } from '../../../src/backups/side-by-side.js';

// The backups panel's side-by-side view (docs/redo.md, After a redo): the unified hunks as
// rows, the backup left and the current file right.

describe('side by side', () => {
  it('pairs each removal with the addition after it, context on both sides, a longer side against blanks', () => {
    const d = diffLines('a\nb\nc\nd\n', 'a\nB\nc\nd\ne\nf\n');
    expect(sideBySide(d.hunks)).toEqual([
      { kind: 'head', text: '@@ -1,4 +1,6 @@' },
      { kind: 'pair', left: 'a', right: 'a', changed: false },
      { kind: 'pair', left: 'b', right: 'B', changed: true },
      { kind: 'pair', left: 'c', right: 'c', changed: false },
      { kind: 'pair', left: 'd', right: 'd', changed: false },
      { kind: 'pair', left: null, right: 'e', changed: true },
      { kind: 'pair', left: null, right: 'f', changed: true },
    ]);
  });

  it('a note (too large, binary) stays one row across', () => {
    expect(sideBySide(['binary, not diffed (…)'])).toEqual([{ kind: 'head', text: 'binary, not diffed (…)' }]);
  });

  it('80 columns give two of 38; under 51 it is too narrow and the panel stays unified', () => {
    expect(sideColumn(80)).toBe(38);
    expect(sideColumn(51)).toBe(24);
    expect(sideColumn(50)).toBeNull();
  });
});
