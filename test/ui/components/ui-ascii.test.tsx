import { afterEach, describe, expect, it } from 'vitest';
import { createLiveWorkspace } from '../../../src/live/live-workspace.js';
import { createAppStore } from '../../../src/ui/store/store.js';
import { NO_COLOR_THEME } from '../../../src/text/theme.js';
import { EMOJI } from '../../../src/text/glyphs.js';
import { CLAIM_GLYPH } from '../../../src/checkpoint/glyphs.js';
import { renderRoom, unmountAll } from '../../helpers/ink.js';
import stringWidth from 'string-width';
import { setOutputCharset, toCharsetInPlace } from '../../../src/text/charset.js';
import { copyDemo } from '../../helpers/workspace.js';

// `--ascii` is for terminals that cannot draw emoji at a fixed width (TERM=linux, non-UTF-8
// locales): no view may build glyph text without asking for it. The Sources view's note
// said `checkpoint says ✅ done` under --ascii; every view and overlay of the demo, at 80x24,
// is checked for any emoji or glyph-set symbol.

const glyphs = [...Object.values(EMOJI), ...Object.values(CLAIM_GLYPH)].filter((g) => /[^\x20-\x7e—]/u.test(g));
const EMOJI_RE = new RegExp(`\\p{Emoji_Presentation}|\\p{Extended_Pictographic}|\\ufe0f|${glyphs.map((g) => g.replace(/\ufe0f/g, '')).join('|')}`, 'u');

afterEach(async () => {
  await unmountAll();
});

describe('--ascii: no emoji in any view', () => {
  it('progress, the cell detail, partials, plan, sources, health and help draw no glyph-set symbol', async () => {
    const dir = copyDemo();
    const live = await createLiveWorkspace(dir, { watch: false });
    const store = createAppStore({ live, ascii: true, now: () => new Date(2026, 10, 30, 5, 12, 0) });
    const { frame, press } = await renderRoom(store, live, NO_COLOR_THEME, 24, 80);
    const seen: string[] = [];
    const look = (what: string) => {
      const f = frame();
      const m = EMOJI_RE.exec(f);
      expect(m ? `${what}: ${m[0]} (U+${m[0].codePointAt(0)!.toString(16)}) in\n${f}` : `${what}: clean`).toBe(`${what}: clean`);
      seen.push(f);
    };
    look('progress');
    await press('\r');
    look('cell detail');
    await press('\u001b', '2');
    look('partials');
    await press('3');
    look('plan');
    await press('4');
    look('sources');
    // The Sources list has rows that disagree (the demo's checkpoint.md claims against the disk).
    expect(frame()).toMatch(/checkpoint says (done|in progress|failed|not started|needs a human)/);
    for (let i = 0; i < 12; i++) await press('j');
    look('sources, scrolled');
    await press('5');
    look('health');
    await press('?');
    look('help');
    expect(seen).toHaveLength(8);
  });
});

describe('the claim column says words, not raw values (`— not-started`)', () => {
  for (const ascii of [false, true]) {
    it(`in the Sources view${ascii ? ' under --ascii' : ''}`, async () => {
      const live = await createLiveWorkspace(copyDemo(), { watch: false });
      const store = createAppStore({ live, ascii, now: () => new Date(2026, 10, 30, 5, 12, 0) });
      const { frame, press } = await renderRoom(store, live, NO_COLOR_THEME, 40, 100);
      await press('4');
      const f = frame();
      expect(f).toMatch(ascii ? /ch09 research\s+not started\s+partial/ : /ch09 research\s+— not started\s+partial/);
      expect(f).toMatch(ascii ? /ch03 r1\s+in progress\s+done/ : /ch03 r1\s+⏳ in progress\s+done/);
      expect(f).not.toMatch(/not-started|in-progress|needs-human/);
    });
  }
});

describe('LANG=C (charset ascii): every view in ASCII, and no frame grows past the terminal', () => {
  afterEach(() => setOutputCharset('unicode'));
  for (const [rows, cols] of [
    [24, 80],
    [20, 60],
  ]) {
    it(`at ${cols}x${rows}: the demo's Chinese title and reasons escaped, every row within the terminal`, async () => {
      // Issue 18 item 5: an escaped name (`\u6df1`) is three times as wide as the name; a
      // view that measured the name, not what is drawn, would wrap a row and push the header off.
      setOutputCharset('ascii');
      const live = await createLiveWorkspace(copyDemo(), { watch: false });
      const store = createAppStore({ live, ascii: true, now: () => new Date(2026, 10, 30, 5, 12, 0) });
      const { frame, press } = await renderRoom(store, live, NO_COLOR_THEME, rows, cols);
      const check = (what: string) => {
        // Ink's own cut (`…`) is put in the charset by the terminal edge (anchoredStdout), as here.
        const lines = toCharsetInPlace(frame(), 'ascii').split('\n');
        const bad = lines.find((l) => /[^\x20-\x7e]/.test(l) || stringWidth(l) > cols);
        expect(`${what}: ${bad ?? 'clean'}`).toBe(`${what}: clean`);
        expect(lines.length, what).toBeLessThanOrEqual(rows);
        // Cut at a whole escape, never inside one.
        expect(lines[0], what).toMatch(/^checkroom - \\u6df1(\\u[0-9a-f]{4}|[ -~])*( - |~)/);
        expect(lines[0], what).not.toMatch(/\\u[0-9a-f]{0,3}~/);
      };
      check('progress');
      await press('\r');
      check('cell detail');
      await press('\u001b', '2');
      check('partials');
      await press('b');
      check('dialog');
      await press('n', '3');
      check('plan');
      await press('4');
      check('sources');
      await press('5');
      check('health');
      await press('?');
      check('help');
    });
  }
});
