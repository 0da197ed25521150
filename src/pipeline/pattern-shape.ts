// Which config patterns V8's backtracking RegExp may run. Patterns come
// from checkroom.yaml, workspace text: `ch(\d+)+x?` against one 36-digit file name kept
// `checkroom status` at 100% CPU for hours. Every pattern runs on RE2 (linear time) unless
// this strict check proves V8 runs it in time linear in the input and with RE2's meaning,
// because RE2 in pure JS is 10–25× slower per match than V8 on the everyday unit pattern
// (docs/performance.md, "Config patterns"). The check is deliberately narrow:
//
// - anchored at the start (`^`): one start position, not one per input character;
// - no alternation anywhere: `(a|a)(a|a)…` backtracks 2^k times without any quantifier;
// - at most one quantifier, on a single atom (never on a group): the one loop gives back at
//   most n characters and what follows it is a fixed sequence of atoms;
// - only syntax that means the same in both engines: no `.` (V8 stops at \r, \u2028), no
//   `\s` (V8's is Unicode, RE2's ASCII), no \p, \x, \u, \k, backreferences, lookaround,
//   inline flags or POSIX classes, no surrogate pairs (V8 without `u` splits them);
// - no flags: `i` and `m` fold and split lines differently in the two engines.
//
// Anything else is not wrong, only not proven: it runs on RE2.

/** Escapes that mean the same character set in V8 (no `u` flag) and RE2. */
const SAME_ESCAPES = new Set(['d', 'D', 'w', 'W', 'b', 'B', 't', 'n', 'r', 'f']);
const PUNCT = /^[!-/:-@[-`{-~]$/;
const QUANT_BRACE = /^\{\d+(?:,\d*)?\}/;

type Tok = { kind: 'atom' | 'quant' | 'open' | 'close' | 'anchor' | 'alt' } | null;

const escapeOk = (c: string | undefined): boolean => c !== undefined && (SAME_ESCAPES.has(c) || PUNCT.test(c));

/** The length of a character class starting at `i` (at `[`), or -1 when it is not the same in both engines. */
function classLength(s: string, i: number): number {
  let j = i + 1;
  if (s[j] === '^') j++;
  if (s[j] === ']') return -1; // `[]a]`: an empty class in V8, a class of `]` and `a` in RE2
  for (; j < s.length; j++) {
    const c = s[j];
    if (c === ']') return j - i + 1;
    if (c === '[') return -1; // `[[:alpha:]]` is a POSIX class only in RE2
    if (c === '\\') {
      if (!escapeOk(s[j + 1]) || s[j + 1] === 'b' || s[j + 1] === 'B') return -1;
      j++;
    }
  }
  return -1;
}

/** One token of the source at `i`: its kind and length; null when the syntax is not proven the same. */
function token(s: string, i: number): { tok: NonNullable<Tok>; len: number } | null {
  const c = s[i];
  const code = c.charCodeAt(0);
  if (code >= 0xd800 && code <= 0xdfff) return null;
  if (c === '\\') {
    if (!escapeOk(s[i + 1])) return null;
    // \b and \B match no character: like ^ and $, nothing to repeat.
    return { tok: { kind: s[i + 1] === 'b' || s[i + 1] === 'B' ? 'anchor' : 'atom' }, len: 2 };
  }
  if (c === '[') {
    const len = classLength(s, i);
    return len < 0 ? null : { tok: { kind: 'atom' }, len };
  }
  if (c === '(') {
    if (s[i + 1] !== '?') return { tok: { kind: 'open' }, len: 1 };
    if (s[i + 2] === ':') return { tok: { kind: 'open' }, len: 3 };
    const named = /^\(\?<([A-Za-z_][A-Za-z0-9_]*)>/.exec(s.slice(i));
    return named ? { tok: { kind: 'open' }, len: named[0].length } : null;
  }
  if (c === ')') return { tok: { kind: 'close' }, len: 1 };
  if (c === '|') return { tok: { kind: 'alt' }, len: 1 };
  if (c === '.') return null;
  if (c === '^' || c === '$') return { tok: { kind: 'anchor' }, len: 1 };
  if (c === '*' || c === '+' || c === '?') return { tok: { kind: 'quant' }, len: s[i + 1] === '?' ? 2 : 1 };
  if (c === '{') {
    const q = QUANT_BRACE.exec(s.slice(i));
    if (q) return { tok: { kind: 'quant' }, len: q[0].length + (s[i + q[0].length] === '?' ? 1 : 0) };
  }
  return { tok: { kind: 'atom' }, len: 1 };
}

/**
 * True when V8's RegExp runs `source` (with `flags`) in linear time and with the meaning RE2
 * gives it. The caller must still compile it with RE2 first: this check reads shape, not validity.
 */
export function provenLinearOnV8(source: string, flags: string): boolean {
  if (flags !== '' || !source.startsWith('^')) return false;
  let quants = 0;
  let prev: Tok = null;
  for (let i = 0; i < source.length; ) {
    const t = token(source, i);
    if (!t) return false;
    if (t.tok.kind === 'alt') return false;
    if (t.tok.kind === 'quant') {
      // Only a single atom may repeat, once in the whole pattern.
      if (prev?.kind !== 'atom' || ++quants > 1) return false;
    }
    prev = t.tok;
    i += t.len;
  }
  return true;
}
