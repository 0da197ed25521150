import stringWidth from 'string-width';
// The drawn form, in the terminal's charset: the width measured here is the
// width drawn under `--ascii` and LANG=C too, where a name may be escaped (`\u4e66`).
import { shownLine as sanitizeLine } from './charset.js';

// Wrap one line into rows of at most `width` columns (by display width, so CJK and emoji
// count double). Continuation rows are indented. Used where truncation would hide what
// matters: the file names in a confirmation, the plan's whole reason. Like the other layout
// helpers (layout.ts) it wraps the text's display form, escaped once here,
// so the rows it measures are the rows drawn.
//
// Names and paths wrap or elide as a whole, never split mid-word. A row
// breaks only where a line breaker would (`breakAt`): at a space or between two wide (CJK)
// characters; at 80 columns a backup dialog used to cut `ch02-panel.md.bak…` in two because
// its only space sat in the row's first half. Only a path wider than a whole row breaks
// after one of its `/`, so each name in it stays whole; a word wider than a row with no `/`
// is elided in its middle, its start and end kept.

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** Where `s` may break so that its first part fits in `room` columns: the code-unit index of
 *  the latest break opportunity (with `slash`, after a `/` too), or -1 when there is none. */
function breakIn(s: string, room: number, slash: boolean): number {
  let used = 0;
  let best = -1;
  let prev = '';
  let prevW = 0;
  let at = 0;
  let text = false;
  for (const { segment } of graphemes.segment(s)) {
    const w = stringWidth(segment);
    // Before this grapheme: after a space (or, with `slash`, a `/`), before a space, or between
    // two wide characters; never inside the leading indent, which would leave a blank row.
    if (text && (prev === ' ' || segment === ' ' || (prevW === 2 && w === 2) || (slash && prev === '/'))) best = at;
    text ||= segment !== ' ';
    if (used + w > room) return best;
    used += w;
    at += segment.length;
    prev = segment;
    prevW = w;
  }
  return at;
}

/** One word too wide for `w` columns, with its middle elided: `ch02-pa…md.bak.2026`. */
export function elideMiddle(word: string, w: number): string {
  const gs = Array.from(graphemes.segment(word), (x) => x.segment);
  const keep = Math.max(1, w - 1);
  const headW = Math.ceil(keep / 2);
  let head = '';
  let used = 0;
  let i = 0;
  for (; i < gs.length && used + stringWidth(gs[i]) <= headW; i++) {
    head += gs[i];
    used += stringWidth(gs[i]);
  }
  let tail = '';
  for (let j = gs.length - 1; j >= i && used + stringWidth(gs[j]) <= keep; j--) {
    tail = gs[j] + tail;
    used += stringWidth(gs[j]);
  }
  return `${head}…${tail}`;
}

/** `breakIn` between words first; inside a path (after a `/`) only when no word break fits. */
export const breakAt = (s: string, room: number): number => {
  const at = breakIn(s, room, false);
  return at > 0 ? at : breakIn(s, room, true);
};

export function wrapLine(text: string, width: number, indent = 4): string[] {
  const w = Math.max(indent + 8, width);
  const rows: string[] = [];
  let rest = sanitizeLine(text);
  while (rest !== '') {
    const room = rows.length ? w - indent : w;
    if (stringWidth(rest) <= room) {
      rows.push(rest);
      break;
    }
    const at = breakAt(rest, room);
    if (at <= 0) {
      // No break fits: the first word alone is wider than the row, drawn whole but elided.
      const word = /^ *\S*/.exec(rest)![0];
      rows.push(elideMiddle(word.trimStart(), room));
      rest = rest.slice(word.length).trimStart();
      continue;
    }
    rows.push(rest.slice(0, at).trimEnd());
    rest = rest.slice(at).trimStart();
  }
  return rows.map((r, i) => (i === 0 ? r : ' '.repeat(indent) + r));
}
