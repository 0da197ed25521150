import { afterEach, describe, expect, it } from 'vitest';
import stringWidth from 'string-width';
import { charsetFor, setOutputCharset, shownLine, toCharset, toCharsetInPlace } from '../../../src/text/charset.js';
import { fit, pad } from '../../../src/text/layout.js';
import { wrapLine } from '../../../src/text/wrap.js';
import { escapeOutput } from '../../../src/cli/text-out.js';

// Issue 18 item 5: the one table and the charset decision (src/text/charset.ts).

afterEach(() => setOutputCharset('unicode'));

// Every glyph our own code draws (src/, components/), and the box drawing a view could use.
const OURS = [...'·…›│─→—–―−“”’×≥≠↑↓←░█✓✔✗✘✖☑⌛', '✅', '🚧', '❌', '✋', '⏳', '⚠', '⚠️', '🔄', ...'┌┐└┘├┤┬┴┼═║╔╗'];

describe('the table', () => {
  for (const cs of ['symbols', 'ascii'] as const) {
    it(`${cs}: each of our glyphs becomes ASCII of the same width`, () => {
      for (const g of OURS) {
        const a = toCharset(g, cs);
        expect(/^[\x20-\x7e]+$/.test(a), `${g} → ${JSON.stringify(a)}`).toBe(true);
        expect(stringWidth(a), `${g} → ${JSON.stringify(a)}`).toBe(stringWidth(g));
      }
    });
  }

  it('reads as the glyph meant', () => {
    expect(toCharset('a · b … c › d │ e ─ f → g — h', 'symbols')).toBe('a - b ~ c > d | e - f > g - h');
    expect(toCharset('✅ done', 'ascii')).toBe('+  done');
  });

  it('symbols keeps the letters of every script and escapes the symbols it does not know', () => {
    expect(toCharset('第一章 · ch01 ー café', 'symbols')).toBe('第一章 - ch01 ー café');
    expect(toCharset('ship 😀 it', 'symbols')).toBe('ship \\u{1f600} it');
  });

  it('ascii escapes every other character visibly, so two names stay two', () => {
    const a = toCharset('书稿', 'ascii');
    const b = toCharset('书评', 'ascii');
    expect(a).toBe('\\u4e66\\u7a3f');
    expect(a).not.toBe(b);
    expect(toCharset('café', 'ascii')).toBe('caf\\u00e9');
  });

  it('is idempotent (the layout helpers and the draw edge may both apply it)', () => {
    for (const cs of ['symbols', 'ascii'] as const) {
      const s = 'ch01 第一章 · ✅ 😀 … café';
      expect(toCharset(toCharset(s, cs), cs)).toBe(toCharset(s, cs));
    }
  });

  it('in place: never wider than the text it replaces (a grid cell is a grid cell)', () => {
    expect(toCharsetInPlace('ab…', 'ascii')).toBe('ab~');
    expect(toCharsetInPlace('书', 'ascii')).toBe('??');
    expect(toCharsetInPlace('书…', 'symbols')).toBe('书~');
  });

  it('unicode changes nothing', () => {
    expect(toCharset('第一章 · ✅', 'unicode')).toBe('第一章 · ✅');
  });
});

describe('which charset a terminal gets', () => {
  const cases: [NodeJS.ProcessEnv, boolean, string][] = [
    [{ TERM: 'xterm-256color', LANG: 'en_US.UTF-8' }, false, 'unicode'],
    [{ TERM: 'xterm-256color', LANG: 'C.UTF-8' }, true, 'symbols'],
    [{ TERM: 'linux', LANG: 'en_US.UTF-8' }, false, 'symbols'],
    [{ TERM: 'dumb', LANG: 'en_US.UTF-8' }, false, 'symbols'],
    [{ TERM: 'vt100', LANG: 'en_US.UTF-8' }, false, 'ascii'],
    [{ TERM: 'vt220' }, false, 'ascii'],
    [{ TERM: 'xterm', LANG: 'C' }, false, 'ascii'],
    [{ TERM: 'xterm', LANG: 'en_US.UTF-8', LC_ALL: 'C' }, false, 'ascii'],
    [{ TERM: 'xterm', LANG: 'POSIX' }, true, 'ascii'],
    [{ TERM: 'xterm', LANG: 'de_DE.ISO-8859-1' }, false, 'ascii'],
    [{ TERM: 'xterm', LC_CTYPE: 'en_US.utf8' }, false, 'unicode'],
    [{ TERM: 'xterm' }, false, 'unicode'],
  ];
  for (const [env, flag, want] of cases) it(`${JSON.stringify(env)}${flag ? ' --ascii' : ''} → ${want}`, () => expect(charsetFor(env, flag)).toBe(want));
});

describe('the layout helpers measure what is drawn', () => {
  it('under ascii a CJK name is cut to its escaped width, never past the column', () => {
    setOutputCharset('ascii');
    // fit's own `…` is put in the charset where it is drawn (Styled, the CLI writer), at its width.
    const cut = shownLine(fit('第一章第二章第三章', 20));
    expect(cut).toMatch(/^[\x20-\x7e]+$/);
    expect(stringWidth(cut)).toBeLessThanOrEqual(20);
    expect(cut.startsWith('\\u7b2c\\u4e00')).toBe(true);
    expect(stringWidth(pad('书', 8))).toBe(8);
    for (const row of wrapLine('一二三四五六七八九十 一二三四五六七八九十', 30)) expect(stringWidth(row)).toBeLessThanOrEqual(30);
    expect(shownLine('a\u001b[2Jb · c')).toBe('a\\e[2Jb - c');
  });

  it('the CLI writer: ASCII in ascii, untouched for JSON (unicode)', () => {
    setOutputCharset('ascii');
    expect(escapeOutput('name: 书 · ok\n', false)).toBe('name: \\u4e66 - ok\n');
    expect(escapeOutput('{"name":"书 ·"}\n', false, 'unicode')).toBe('{"name":"书 ·"}\n');
  });
});
