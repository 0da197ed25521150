import { afterEach, describe, expect, it } from 'vitest';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import stringWidth from 'string-width';
import { sanitize, sanitizeLine } from '../../../src/text/sanitize.js';
import { fit, pad } from '../../../src/text/layout.js';
import { wrapLine } from '../../../src/text/wrap.js';
import { createLiveWorkspace } from '../../../src/live/live-workspace.js';
import { createAppStore } from '../../../src/ui/store/store.js';
import { NO_COLOR_THEME } from '../../../src/text/theme.js';
import { renderRoom, tick, unmountAll } from '../../helpers/ink.js';
import { copyDemo } from '../../helpers/workspace.js';

// Format characters (Unicode Cf) at the render edge: string-width counts a zero-width space,
// a soft hyphen or a word joiner as 0 columns, the terminal does not, and each one cost a
// real character at the end of the line (`B1 abc\u200bdef` drawn `B1 abcde`). sanitize shows
// them escaped, so what is measured is what is drawn; combining marks stay as they are.

const FORMAT = ['\u200b', '\u200c', '\u200d', '\u00ad', '\u2060', '\ufeff', '\u2062', '\u200e', '\u061c', '\u{e0041}'];
const ANY_CF = /\p{Cf}/u;

afterEach(async () => {
  await unmountAll();
});

describe('sanitize and format characters', () => {
  it('escapes every format character, readable in the text, and keeps combining marks', () => {
    expect(sanitizeLine('abc\u200bdef')).toBe('abc\\u200bdef');
    expect(sanitizeLine('co\u00adop \u2060x\ufeff')).toBe('co\\xadop \\u2060x\\ufeff');
    expect(sanitizeLine('tag\u{e0041}')).toBe('tag\\u{e0041}');
    // An emoji ZWJ sequence shows its joiners: a terminal that does not join them draws two
    // columns per emoji, where string-width counts the whole sequence as two.
    expect(sanitizeLine('\u{1f468}\u200d\u{1f469}')).toBe('\u{1f468}\\u200d\u{1f469}');
    // Combining marks (Mn, Me) are letters of many scripts: untouched.
    for (const s of ['e\u0301', 'क्षि', 'ของ', '\u0e01\u0e34']) expect(sanitizeLine(s)).toBe(s);
    for (const c of FORMAT) expect(ANY_CF.test(sanitize(`a${c}b\n`))).toBe(false);
  });

  it('stays idempotent with format characters among the controls', () => {
    const text = fc.array(fc.oneof(fc.string(), fc.constantFrom(...FORMAT, '\u001b', '\r', '\n', '\t', '\\u200b', '\\u{e0041}'))).map((p) => p.join(''));
    fc.assert(
      fc.property(text, (s) => {
        expect(sanitizeLine(sanitizeLine(s))).toBe(sanitizeLine(s));
        expect(sanitize(sanitize(s))).toBe(sanitize(s));
        expect(ANY_CF.test(sanitizeLine(s))).toBe(false);
      }),
    );
  });

  it('fit, pad and wrapLine lose no visible character: every drawn character takes one column', () => {
    const s = 'a\u200bb\u200bc\u200bd end co\u00adop\u2060z';
    for (const out of [fit(s, 60), pad(s, 60).trimEnd(), ...wrapLine(s, 12)]) {
      for (const ch of out) expect([ch, stringWidth(ch)]).toEqual([ch, 1]);
    }
    expect(fit(s, 60)).toBe('a\\u200bb\\u200bc\\u200bd end co\\xadop\\u2060z');
    expect(stringWidth(pad(s, 60))).toBe(60);
  });
});

describe('the Partials view with a zero-width space in a half-product', () => {
  it('shows the whole line, the format character escaped', async () => {
    const dir = copyDemo();
    appendFileSync(join(dir, 'research/ch07-research.md'), '\nB1 abc\u200bdef\n');
    const live = await createLiveWorkspace(dir, { watch: false });
    const store = createAppStore({ live, now: () => new Date(2026, 10, 30, 5, 12, 0) });
    const { frame, press } = await renderRoom(store, live, NO_COLOR_THEME, 24, 80);
    await press('2', 'j', 'j');
    const t0 = Date.now();
    while (!frame().includes('B1 abc') && Date.now() - t0 < 5000) await tick(20);
    const f = frame();
    expect(f).toContain('B1 abc\\u200bdef');
    expect(ANY_CF.test(f)).toBe(false);
  });
});
