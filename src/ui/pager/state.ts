import stringWidth from 'string-width';
import type { AttemptLog } from '../../run/logs/attempts.js';
import { readableLine, rawLine, type EventKind } from '../../run/logs/event.js';
import type { SafePattern } from '../../pipeline/safe-pattern.js';
import { shownLine } from '../../text/charset.js';

// The log pager's state and its pure parts (docs/logs.md, "The pager"): which attempt, where
// in it, what is shown, and how a line becomes rows. Reading the file is store-pager.ts's;
// drawing is components/panes/LogPager.tsx's.

export interface PagerUi {
  unit: string;
  step: string;
  /** The cell's attempts, oldest first; `at` indexes the one shown. */
  attempts: AttemptLog[];
  at: number;
  /** Workspace-relative path of the log shown. */
  rel: string;
  /** Why there is nothing to show (log pruned, missing, refused), or null. */
  error: string | null;
  /** First line shown (0-based) and how many rows the body has. */
  top: number;
  rows: number;
  /** Lines known (all once `complete`) and the raw text of those shown, from `top`. */
  total: number;
  complete: boolean;
  lines: string[];
  follow: boolean;
  wrap: boolean;
  raw: boolean;
  /** The applied search, and the line of its current hit. */
  query: string | null;
  hit: number | null;
  /** Where a search slice stopped without a match: n (or N) goes on from there. */
  searchFrom: number | null;
  /** The search being typed after `/`, or null. */
  typing: string | null;
  /** A line to mark (the error jump). */
  mark: number | null;
  note: string | null;
}

export const closedPager = (unit: string, step: string, attempts: AttemptLog[]): PagerUi => ({
  unit,
  step,
  attempts,
  at: Math.max(0, attempts.length - 1),
  rel: '',
  error: null,
  top: 0,
  rows: 10,
  total: 0,
  complete: false,
  lines: [],
  follow: false,
  wrap: false,
  raw: false,
  query: null,
  hit: null,
  searchFrom: null,
  typing: null,
  mark: null,
  note: null,
});

/** The top line that shows `line` with a few lines of context above it. */
export const topFor = (line: number, rows: number): number => Math.max(0, line - Math.min(3, Math.floor(rows / 3)));

/** The last top that still fills the body. */
export const bottomTop = (total: number, rows: number): number => Math.max(0, total - rows);

export interface ShownLine {
  kind: EventKind;
  text: string;
}

/** A raw log line as the pager draws it: the readable event, or the raw line escaped. */
export const shownOf = (raw: string, asRaw: boolean): ShownLine => (asRaw ? { kind: 'text', text: rawLine(raw) } : readableLine(raw));

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** Hard-wrap drawn text into rows of at most `width` columns (log lines have no words to keep). */
export function wrapRows(text: string, width: number): string[] {
  const drawn = shownLine(text);
  if (stringWidth(drawn) <= width) return [drawn];
  const rows: string[] = [];
  let row = '';
  let used = 0;
  for (const { segment } of graphemes.segment(drawn)) {
    const w = stringWidth(segment);
    if (used + w > width && row !== '') {
      rows.push(row);
      row = '';
      used = 0;
    }
    row += segment;
    used += w;
  }
  if (row !== '') rows.push(row);
  return rows;
}

/** A row cut into plain and matched parts, for the search's highlight. */
export function marks(row: string, p: SafePattern | null): { text: string; hit: boolean }[] {
  if (!p || row === '') return [{ text: row, hit: false }];
  const out: { text: string; hit: boolean }[] = [];
  let at = 0;
  for (const m of p.matchAll(row)) {
    const whole = m.groups[0] ?? '';
    if (whole === '') continue;
    if (m.index > at) out.push({ text: row.slice(at, m.index), hit: false });
    out.push({ text: whole, hit: true });
    at = m.index + whole.length;
  }
  if (at < row.length) out.push({ text: row.slice(at), hit: false });
  return out.length ? out : [{ text: row, hit: false }];
}

/** The pager's status row: where, how much, which modes. */
export function statusWords(p: PagerUi): string {
  if (p.error) return p.error;
  const last = Math.min(p.total, p.top + p.lines.length);
  const of = p.complete ? `${p.total}` : `${p.total}+ (indexing on demand)`;
  const where = p.total === 0 ? 'empty log' : `lines ${p.top + 1}-${last} of ${of}`;
  const modes = [p.follow ? 'follow' : '', p.wrap ? 'wrap' : '', p.raw ? 'raw' : 'events'].filter(Boolean).join(' · ');
  const search = p.query !== null ? ` · /${p.query}${p.hit === null ? ' (no match)' : ` at line ${p.hit + 1}`}` : '';
  return `${where} · ${modes}${search}`;
}

/** The title row: the cell, the attempt and its outcome, the file. */
export function titleWords(p: PagerUi): string {
  const a = p.attempts[p.at];
  if (!a) return `log · ${p.unit} ${p.step} · no attempt in the journal`;
  const outcome = a.live ? 'running' : (a.class ?? 'ended');
  return `log · ${p.unit} ${p.step} · attempt ${a.attempt} (${p.at + 1} of ${p.attempts.length}) · ${a.agent} · ${outcome}`;
}
