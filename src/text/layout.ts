import stringWidth from 'string-width';
import type { NextStep, PartialFile, WorkspaceState } from '../types.js';
// The drawn form, in the terminal's charset: the width measured here is the
// width drawn under `--ascii` and LANG=C too, where a name may be escaped (`\u4e66`).
import { shownLine as sanitizeLine } from './charset.js';
import { ACTION_WORDS, actionWord } from '../plan/action-words.js';
import type { Paint } from './paint.js';
import { breakAt, elideMiddle } from './wrap.js';

// Layout of text on a fixed number of columns: padding, cutting, column widths, the plan's
// and the half-products' lines. Both faces draw with it — the control room's components and
// the headless commands — so it lives below both (one way down).
//
// Sanitize once where text is drawn: the helpers that measure or cut text
// (`pad`, `fit`, `fitStart`, `columnWidth`, `columnLabels`, `drawnLength`) take raw workspace
// text and work on its display form, `sanitizeLine` (src/text/sanitize.ts), so a width computed
// here is the width drawn and callers never escape by hand. Escaping is idempotent, so text
// that is already escaped passes unchanged. Paint after laying out, never before: a painted
// string cut here shows its SGR codes escaped (`\e[33m`) instead of colouring.

export interface TextOptions {
  paint: Paint;
  ascii: boolean;
  width: number;
}

/** How many characters a text has once drawn, for the layouts that count characters, not columns. */
export const drawnLength = (s: string): number => sanitizeLine(s).length;

export const pad = (raw: string, w: number): string => {
  const s = sanitizeLine(raw);
  return s + ' '.repeat(Math.max(0, w - stringWidth(s)));
};

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

// The tail of an escape the cut went through (sanitize.ts and charset.ts write `\xNN`, `\uNNNN`, `\u{N}`).
const HALF_ESCAPE = /\\(?:u(?:\{[0-9a-f]*|[0-9a-f]{0,3})|x[0-9a-f]?)?$/;

export const fit = (raw: string, w: number): string => {
  const s = sanitizeLine(raw);
  if (stringWidth(s) <= w) return s;
  // One pass over the graphemes, each measured once (measuring the growing
  // prefix again for every character was quadratic in the line's length).
  let out = '';
  let used = 0;
  for (const { segment } of graphemes.segment(s)) {
    const gw = stringWidth(segment);
    if (used + gw > w - 1) break;
    out += segment;
    used += gw;
  }
  // Never half an escape (`\u6df1\u51…`: names are escaped so under LANG=C).
  return `${out.replace(HALF_ESCAPE, '')}…`;
};

/** `fit` at a word boundary (reasons were cut mid-word): the text up to its
 *  last break that leaves room for "…" (after a space or a `/`, or between CJK characters),
 *  with trailing separators dropped. Only a first word wider than the column is elided in
 *  its middle; the views show the whole text in the detail under the list. */
export const fitWords = (raw: string, w: number): string => {
  const s = sanitizeLine(raw);
  if (stringWidth(s) <= w) return s;
  if (w <= 0) return '';
  if (w === 1) return '…';
  const at = breakAt(s, w - 1);
  if (at <= 0) return elideMiddle(s.trimStart().split(' ')[0], w);
  const head = s.slice(0, at).replace(/[\s,;:·—–-]+$/u, '');
  return `${head === '' ? s.slice(0, at) : head}…`;
};

/** A path in `w` columns, its names whole: leading directories give way
 *  first (`…/drafts/ch05-draft.md`), and only a file name wider than the column is elided in
 *  its middle, its start and extension kept. */
export const fitPath = (raw: string, w: number): string => {
  const s = sanitizeLine(raw);
  if (stringWidth(s) <= w) return s;
  const parts = s.split('/');
  let tail = parts.pop()!;
  if (stringWidth(tail) + 2 > w) return elideMiddle(tail, w);
  while (parts.length && stringWidth(`…/${parts[parts.length - 1]}/${tail}`) <= w) tail = `${parts.pop()}/${tail}`;
  return `…/${tail}`;
};

/** Whole hints, in order, as many as fit in `w` columns ("…" when some are left out): a hint is never cut mid-word. */
export const packHints = (hints: readonly string[], w: number, sep = ' · '): string => {
  let out = '';
  for (const [i, h] of hints.entries()) {
    const next = out === '' ? h : `${out}${sep}${h}`;
    const more = i < hints.length - 1 ? 2 : 0; // room for " …" if something follows
    if (stringWidth(sanitizeLine(next)) + more > w) return out === '' ? fit(h, w) : `${out} …`;
    out = next;
  }
  return out;
};

/** The end of a text when it is too long: "…/runs/ch01-research-a1.log" (a path's end says most). */
export const fitStart = (raw: string, w: number): string => {
  const s = [...sanitizeLine(raw)];
  return s.length <= w ? s.join('') : `…${s.slice(-(w - 1)).join('')}`;
};

/** A column's width from its content: the widest text, kept within [min, max]. Callers
 *  put one space after the column, so neighbours never run together. */
export const columnWidth = (texts: Iterable<string>, min: number, max: number): number => {
  let w = min;
  for (const t of texts) w = Math.max(w, stringWidth(sanitizeLine(t)));
  return Math.min(w, Math.max(min, max));
};

export const bar = (done: number, total: number, width: number, ascii: boolean): string => {
  const filled = total === 0 ? 0 : Math.round((done / total) * width);
  return ascii ? `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]` : `${'█'.repeat(filled)}${'░'.repeat(width - filled)}`;
};

const P_TOKEN = { 1: 'fail', 2: 'warn', 3: 'accent' } as const;

/** A list row's columns — a mark (2), a name, a state, the rest, one space after each —
 *  on `width` columns. The rest gives way first, then the name (down to 8), and the state
 *  last: Health's state column holds a breaker's countdown, which a narrow terminal hid while
 *  the counts kept their room. */
export function stateFirstColumns(width: number, nameWant: number, stateWant: number): { name: number; state: number; rest: number } {
  const room = Math.max(2, width - 4);
  const state = Math.max(1, Math.min(stateWant, room - Math.min(8, nameWant)));
  const name = Math.max(1, Math.min(nameWant, room - state));
  return { name, state, rest: Math.max(0, room - name - state) };
}

/** Three-character column headings, unique where the ids allow: `research` → `res`; when two
 *  ids share a prefix (gate steps `s04` and `s04.5`) the longer one shows its end (`4.5`). */
export function columnLabels(raw: readonly string[], width = 3): string[] {
  const ids = raw.map(sanitizeLine);
  const first = ids.map((id) => id.slice(0, width));
  return ids.map((id, i) => (id.length > width && first.some((f, j) => j !== i && f === first[i]) ? id.slice(-width) : first[i]));
}

// Every plan action in operator words, so the action column fits the
// longest one on every line of a table: a column padded to a shorter width shifts the
// reasons of that line.
export const ACTION_W = columnWidth(Object.values(ACTION_WORDS), 0, 40);

export const whereOf = (n: NextStep): string => (n.unit ? `${n.unit} ${n.step ?? ''}` : 'workspace');

/** The `where` column of a plan table, from its entries: at least 13 (`ch01 research`). */
export const whereWidth = (next: readonly NextStep[]): number => columnWidth(next.map(whereOf), 13, 28);

/** One plan entry: `P1 where action reason`. Without `whereW` (see whereWidth) the place is
 *  padded to 13 and never cut, so a longer one shifts only its own line. */
export function nextLine(n: NextStep, o: TextOptions, width: number, whereW?: number): string {
  const where = whereW === undefined ? pad(whereOf(n), 13) : pad(fit(whereOf(n), whereW), whereW);
  const head = `${where} ${pad(actionWord(n.action), ACTION_W)} `;
  return `${o.paint(P_TOKEN[n.priority], `P${n.priority}`)} ${fitWords(head + n.reason, width - 3)}`;
}

export function partialLine(p: PartialFile, o: TextOptions): string[] {
  const tok = p.verdict === 'maybe_complete' ? 'warn' : 'fail';
  return [
    `${o.paint(tok, pad(p.verdict, 24))} ${pad(String(p.chars), 7)} ${fitPath(p.path, o.width - 33)}`,
    o.paint('muted', `  ${fitWords(p.reason, o.width - 2)}`),
  ];
}

/** Why an empty plan is not "all done": no chapter was found at all, and what the scan saw instead. */
export const noUnitsWhy = (s: Pick<WorkspaceState, 'warnings'>): string => {
  const w = s.warnings.find((x) => x.source === 'checkroom.yaml' && /units\.pattern/.test(x.message));
  return `no chapters found${w ? `: ${sanitizeLine(w.message)}` : ' (no checkpoint.md row and no step output names one)'}`;
};

/** `label item · item · …`, wrapped to `width` columns with continuation lines under the first item. */
export function wrapItems(label: string, items: readonly string[], width: number): string[] {
  const indent = ' '.repeat(stringWidth(label));
  const lines: string[] = [];
  let line = label;
  let empty = true;
  for (const item of items) {
    const piece = empty ? item : ` · ${item}`;
    if (!empty && stringWidth(line) + stringWidth(piece) > width) {
      lines.push(line);
      line = indent + item;
    } else line += piece;
    empty = false;
  }
  lines.push(line);
  return lines;
}
