import stringWidth from 'string-width';
import { sanitizeLine } from './sanitize.js';

// What the terminal can show: `--ascii`, TERM=linux/vt100 and LANG=C still
// received `· … › │ ─ → —` (187 `·` and 37 `…` in one tour; a non-UTF-8 client drew them
// as `~ _ x`). Three charsets, decided once at the entry (setOutputCharset):
//   unicode  a UTF-8 terminal: everything as it is.
//   symbols  `--ascii`, TERM=linux, TERM=dumb: the terminal is UTF-8 but cannot be trusted
//            with our glyphs (emoji widths, box drawing, arrows, typographic punctuation):
//            every symbol and punctuation mark becomes ASCII, from our text and the
//            workspace's alike; letters, digits and marks of any script stay (a Chinese
//            unit name is what the operator asked to read, and this terminal draws it).
//   ascii    a non-UTF-8 locale (LANG=C, POSIX, ISO-8859-1) or a VT-series terminal
//            (vt100, vt220) or a BSD console (cons25): not one non-ASCII byte. Letters of
//            other scripts are escaped visibly (`书` → `\u4e66`) so two names stay distinct.
//
// ONE table. Each entry maps a code point to one ASCII character, padded to the code point's
// own width (`✅` two columns → `+ `, `…` one column → `~`): a replacement never changes a
// width, so text measured before it (a stringWidth in a component, Ink's own layout, the
// cell grid of src/ui/term/anchored-stdout.ts) stays aligned and within 80 columns. Only what the
// table does not know is escaped (`\u{1f600}`) and widens; the layout helpers measure the
// transliterated form (shownLine), so a line they cut is cut to its drawn width.

export type Charset = 'unicode' | 'symbols' | 'ascii';

// One row per family, as a table reads best.
// prettier-ignore
const ONE: Record<string, string> = {
  '·': '-', '•': '*', '…': '~', '›': '>', '‹': '<', '»': '>', '«': '<',
  '→': '>', '←': '<', '↑': '^', '↓': 'v', '⇒': '>', '⇐': '<', '↔': '-', '↵': '<', '⏎': '<',
  '—': '-', '–': '-', '―': '-', '−': '-', '‐': '-', '‑': '-', '‒': '-',
  '“': '"', '”': '"', '„': '"', '‘': "'", '’': "'", '‚': "'", '′': "'", '″': '"',
  '×': 'x', '÷': '/', '≥': '>', '≤': '<', '≠': '#', '≈': '~', '±': '+', '°': 'o',
  '✓': '+', '✔': '+', '☑': '+', '✅': '+', '✗': 'x', '✘': 'x', '✖': 'x', '❌': 'X',
  '⚠': '!', '✋': '!', '⏳': '>', '⌛': '>', '🚧': '~', '🔄': '@', '⏸': '|', '▶': '>', '◀': '<',
  '▲': '^', '▼': 'v', '●': '*', '○': 'o', '◆': '*', '◇': 'o', '■': '#', '□': '.',
  '░': '.', '▒': ':', '\u00a0': ' ', '\u3000': ' ',
  // Variation selectors: the glyph before them is already replaced at its own width.
  '\ufe0e': '', '\ufe0f': '',
};

const VERTICAL = new Set([...'│┃║╎╏┆┇┊┋╵╷╹╻╽╿']);
const HORIZONTAL = new Set([...'─━═╌╍┄┅┈┉╴╶╸╺╼╾']);

/** The ASCII for one code point, at its own width; undefined when the table has none. */
function tableFor(ch: string, cp: number): string | undefined {
  let one = ONE[ch];
  // Box drawing (U+2500–257F) and block elements (U+2580–259F) by shape.
  if (one === undefined && cp >= 0x2500 && cp <= 0x257f) one = VERTICAL.has(ch) ? '|' : HORIZONTAL.has(ch) ? '-' : '+';
  if (one === undefined && cp >= 0x2580 && cp <= 0x259f) one = '#';
  if (one === undefined || one === '') return one;
  return one.padEnd(Math.max(1, stringWidth(ch)));
}

// Letters, marks and digits of every script, the CJK symbols and punctuation block, kana
// (with its middle dot) and the fullwidth forms: what a UTF-8 terminal under `--ascii` keeps.
const KEPT = /^[\p{L}\p{M}\p{N}\u3000-\u30ff\uff00-\uffef]$/u;

const escaped = (cp: number): string => (cp <= 0xffff ? `\\u${cp.toString(16).padStart(4, '0')}` : `\\u{${cp.toString(16)}}`);

const NON_ASCII = /[\x80-\uffff]/;
const EACH_NON_ASCII = /[^\0-\x7f]/gu;
const symbolsOf = new Map<string, string>();
const asciiOf = new Map<string, string>();

/** `s` in `cs`: for `symbols` and `ascii`, every character outside the charset through the table, else escaped. */
export function toCharset(s: string, cs: Charset): string {
  if (cs === 'unicode' || !NON_ASCII.test(s)) return s;
  const seen = cs === 'symbols' ? symbolsOf : asciiOf;
  return s.replace(EACH_NON_ASCII, (ch) => {
    let r = seen.get(ch);
    if (r === undefined) {
      const cp = ch.codePointAt(0)!;
      r = tableFor(ch, cp) ?? (cs === 'symbols' && KEPT.test(ch) ? ch : escaped(cp));
      seen.set(ch, r);
    }
    return r;
  });
}

/**
 * For text already laid out (Ink's own cut, a terminal grid's cells): like toCharset but
 * never wider than the original; what the table does not know becomes `?` per column.
 */
export function toCharsetInPlace(s: string, cs: Charset): string {
  if (cs === 'unicode' || !NON_ASCII.test(s)) return s;
  let out = '';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (cp < 0x80) out += ch;
    else out += tableFor(ch, cp) ?? (cs === 'symbols' && KEPT.test(ch) ? ch : '?'.repeat(stringWidth(ch)));
  }
  return out;
}

/** The charset the terminal of `env` can show; `flag` is `--ascii`. */
export function charsetFor(env: NodeJS.ProcessEnv, flag: boolean): Charset {
  const term = env.TERM ?? '';
  const locale = env.LC_ALL || env.LC_CTYPE || env.LANG || '';
  if (/^(vt\d+.*|cons\d+)$/.test(term)) return 'ascii';
  // An unset locale is not a statement about the terminal (a bare `env -i`, many CI boxes).
  if (locale !== '' && !/utf-?8/i.test(locale)) return 'ascii';
  if (flag || /^(linux|dumb)$/.test(term)) return 'symbols';
  return 'unicode';
}

// One terminal per process: the entry sets it once (src/cli.ts), before anything is drawn or
// written; every drawn string (components/Styled.tsx), every measure of the layout helpers
// (src/text/layout.ts, wrap.ts) and the CLI's text writer (src/cli/text-out.ts) read it. JSON
// output never does: it is UTF-8 for scripts.
let current: Charset = 'unicode';

export const setOutputCharset = (cs: Charset): void => {
  current = cs;
};

export const outputCharset = (): Charset => current;

/** One line as drawn: escaped (sanitizeLine), then in the terminal's charset. Idempotent. */
export const shownLine = (text: string): string => toCharset(sanitizeLine(text), current);
