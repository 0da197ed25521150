// Text from the workspace or from agents never reaches the terminal raw (README: security).
// Every C0/C1 control character except tab and newline is shown escaped, which defuses CSI,
// OSC (title, clipboard, hyperlinks), DCS, CR overwrites, backspace tricks and the bell.
// strip-ansi alone is not enough: it leaves CR, BS and BEL, and unknown sequences.
//
// Format characters (Unicode category Cf: zero-width space and joiners, soft hyphen, word
// joiner, BOM, invisible operators, tags; the bidi controls are Cf too) are escaped as well.
// string-width counts them 0 columns, terminals do not agree (a soft hyphen takes a cell,
// tmux gives a zero-width space one), so every one cost a real character at the end of a
// line: `abc\u200bdef` was drawn `abcde`. Escaped, the text and its measure agree. The ZWJ
// of emoji sequences goes too: terminals that do not join them draw each emoji, two columns
// apiece, where string-width counts the sequence as one — the same disagreement. Combining
// marks (Mn, Me) are real text in many scripts and stay as they are.

// eslint-disable-next-line no-control-regex -- control characters are what it escapes
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\p{Cf}]/gu;

const NAMED: Record<string, string> = {
  '\u001b': '\\e',
  '\r': '\\r',
  '\b': '\\b',
  '\u0007': '\\a',
  '\u0000': '\\0',
  '\f': '\\f',
  '\v': '\\v',
};

const escapeChar = (c: string): string => {
  const named = NAMED[c];
  if (named) return named;
  const code = c.codePointAt(0)!;
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, '0')}`;
  // Tags (U+E0020...) are beyond four hex digits: braces keep `\u{e0041}` unambiguous.
  return code <= 0xffff ? `\\u${code.toString(16).padStart(4, '0')}` : `\\u{${code.toString(16)}}`;
};

/** Multi-line text: keeps newlines and tabs (tabs become spaces so widths stay predictable). */
export const sanitize = (text: string): string => text.replace(CONTROL, escapeChar).replace(/\t/g, '  ');

// CONTROL with tab and newline: a line without any of these is shown as it is. One scan
// decides, instead of three replaces, on every line an agent's flood sends.
// eslint-disable-next-line no-control-regex -- the same characters as CONTROL, plus \t and \n
const ANY_ESCAPED = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\p{Cf}]/u;

/** One line (file names, reasons): newlines are escaped too. */
export const sanitizeLine = (text: string): string => (ANY_ESCAPED.test(text) ? sanitize(text).replace(/\n/g, '\\n') : text);
