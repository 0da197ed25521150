// SGR state as a canonical key (write only the changed cells). Two cells look
// the same when their keys are equal, whatever sequences produced them ("\e[1;32m" and
// "\e[32m\e[1m" give one key), so the diff compares strings, and a run's style is set with
// the fewest parameters from the style in effect before it.

/** A parsed style: attribute codes (1 bold, 2 dim, 3 italic, 4 underline, ...), colours as SGR text. */
interface Style {
  attrs: number[];
  fg: string | null;
  bg: string | null;
}

export const PLAIN = '';

const ATTR_OFF: Record<number, number[]> = { 22: [1, 2], 23: [3], 24: [4, 21], 25: [5], 27: [7], 28: [8], 29: [9], 55: [53] };
const ATTRS = new Set([1, 2, 3, 4, 5, 7, 8, 9, 21, 53]);

const keyOf = (s: Style): string => [...s.attrs.map(String), s.fg, s.bg].filter((p): p is string => p !== null).join(';');

const parsed = new Map<string, Style>([[PLAIN, { attrs: [], fg: null, bg: null }]]);
const applied = new Map<string, string>();

function styleOf(key: string): Style {
  const hit = parsed.get(key);
  if (hit) return hit;
  const s = applySgrTo({ attrs: [], fg: null, bg: null }, key);
  parsed.set(key, s);
  return s;
}

// A colour parameter: "31", "38;5;208" or "38;2;r;g;b"; returns it and how many params it took.
const colour = (p: number[], i: number): [string, number] => {
  const base = p[i]!;
  if (base !== 38 && base !== 48) return [String(base), 1];
  if (p[i + 1] === 5) return [`${base};5;${p[i + 2] ?? 0}`, 3];
  if (p[i + 1] === 2) return [`${base};2;${p[i + 2] ?? 0};${p[i + 3] ?? 0};${p[i + 4] ?? 0}`, 5];
  return ['', p.length];
};

function applySgrTo(from: Style, params: string): Style {
  const p = params === '' ? [0] : params.split(/[;:]/).map((x) => (x === '' ? 0 : Number(x)));
  let attrs = from.attrs;
  let { fg, bg } = from;
  for (let i = 0; i < p.length;) {
    const n = p[i]!;
    if (n === 0) [attrs, fg, bg] = [[], null, null];
    else if (ATTRS.has(n)) attrs = attrs.includes(n) ? attrs : [...attrs, n].sort((a, b) => a - b);
    else if (ATTR_OFF[n]) attrs = attrs.filter((a) => !ATTR_OFF[n]!.includes(a));
    else if (n === 39) fg = null;
    else if (n === 49) bg = null;
    else if ((n >= 30 && n <= 38) || (n >= 90 && n <= 97)) {
      const [c, used] = colour(p, i);
      fg = c || fg;
      i += used;
      continue;
    } else if ((n >= 40 && n <= 48) || (n >= 100 && n <= 107)) {
      const [c, used] = colour(p, i);
      bg = c || bg;
      i += used;
      continue;
    }
    i += 1;
  }
  return { attrs, fg, bg };
}

/** The style key after an SGR sequence with these parameters (the text between "\e[" and "m"). */
export function applySgr(key: string, params: string): string {
  // A frame repeats a handful of styles: each (style, sequence) pair is worked out once.
  const memo = `${key}|${params}`;
  let next = applied.get(memo);
  if (next === undefined) {
    next = keyOf(applySgrTo(styleOf(key), params));
    if (applied.size < 10_000) applied.set(memo, next);
  }
  return next;
}

/** The shortest SGR sequence that turns style `from` into style `to` ('' when they are equal). */
export function sgrTransition(from: string, to: string): string {
  if (from === to) return '';
  if (to === PLAIN) return '\u001b[m';
  const a = styleOf(from);
  const b = styleOf(to);
  // An attribute to drop has its own off-code, but "reset, then set" is shorter and certain.
  if (from === PLAIN || a.attrs.some((x) => !b.attrs.includes(x))) return `\u001b[${from === PLAIN ? '' : '0;'}${to}m`;
  const parts = b.attrs.filter((x) => !a.attrs.includes(x)).map(String);
  if (a.fg !== b.fg) parts.push(b.fg ?? '39');
  if (a.bg !== b.bg) parts.push(b.bg ?? '49');
  return `\u001b[${parts.join(';')}m`;
}
