import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import stringWidth from 'string-width';
import { fit, packHints } from '../../../src/text/layout.js';

// The row builders' cutting (src/text/layout.ts): `fit` cuts a text to a width in one pass,
// `packHints` keeps whole footer hints (the operator review saw "c conse…" at 80 columns).

describe('fit', () => {
  it('never draws wider than asked, keeps what fits, and marks the cut', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', '漢', 'é', '👍🏽', ' ', '字', '\u001b', '\r') , maxLength: 60 }), fc.integer({ min: 1, max: 40 }), (s, w) => {
        const out = fit(s, w);
        expect(stringWidth(out)).toBeLessThanOrEqual(w);
        if (stringWidth(fit(s, 10_000)) <= w) expect(out).toBe(fit(s, 10_000));
        else expect(out.endsWith('…')).toBe(true);
      }),
    );
  });

  it('cuts between graphemes: a skin-toned emoji and a CJK character stay whole', () => {
    expect(fit('ab👍🏽cd', 4)).toBe('ab…');
    expect(fit('ab👍🏽cd', 5)).toBe('ab👍🏽…');
    expect(fit('漢字テスト', 6)).toBe('漢字…');
  });
});

describe('packHints', () => {
  const hints = ['1-5/tab views', 'b back up', 'm keep', 'd redo', 's skip', 'c conservative', 'u undo'];

  it('keeps whole hints, in order, and says "…" when some are left out', () => {
    expect(packHints(hints, 200)).toBe(hints.join(' · '));
    const cut = packHints(hints, 60);
    expect(cut).toBe('1-5/tab views · b back up · m keep · d redo · s skip …');
    expect(stringWidth(cut)).toBeLessThanOrEqual(60);
    for (const w of [12, 20, 33, 47, 59, 61, 75]) {
      const out = packHints(hints, w);
      expect(stringWidth(out)).toBeLessThanOrEqual(w);
      expect(out.replace(/ …$/, '').split(' · ').every((h) => hints.includes(h) || h.endsWith('…'))).toBe(true);
    }
  });

  it('cuts the only hint when even the first does not fit', () => {
    expect(packHints(['a very long first hint'], 8)).toBe('a very …');
  });
});
