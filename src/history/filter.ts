import { parseDuration } from '../pipeline/duration.js';
import type { HistoryRow } from './timeline.js';
import { rowWords } from './words.js';

// What narrows the timeline (docs/history.md, Filters): a start (`--since 2h`, `--since 14:05`,
// `--since 2026-12-01T14:05`), a cell (`--cell ch01/draft`), and the view's `/` text.

export interface HistoryFilter {
  since?: number | null;
  /** `unit/step`, or a unit alone (every step of it). */
  cell?: string | null;
  /** Case-insensitive words the row must contain, all of them. */
  text?: string;
}

export class SinceError extends Error {}

const CLOCK = /^(\d{1,2}):(\d{2})$/;

/**
 * The moment `text` names, at `now`: a duration back (`2h`, `30m`, `1h30m`), a local time of
 * day (`14:05`: today, or yesterday when that is still to come) or a date and time that
 * Date.parse reads. A clear error otherwise.
 */
export function parseMoment(text: string, now: number): number {
  const t = text.trim();
  const back = parseDuration(t);
  if (back !== null && /[a-z]$/.test(t)) return now - back;
  const clock = CLOCK.exec(t);
  if (clock) {
    const [h, m] = [Number(clock[1]), Number(clock[2])];
    if (h < 24 && m < 60) {
      const d = new Date(now);
      d.setHours(h, m, 0, 0);
      return d.getTime() > now ? d.getTime() - 86_400_000 : d.getTime();
    }
  }
  if (/^\d{4}-\d{2}-\d{2}/.test(t)) {
    const at = Date.parse(t);
    if (Number.isFinite(at)) return at;
  }
  throw new SinceError(`"${t}" is not a moment: give a duration back (2h, 30m, 1h30m), a time of day (14:05) or a date (2026-12-01T14:05)`);
}

// A row's words, lower-cased, once per row object (a run's row is a new object when it ends):
// typing a filter over a 100k-row timeline searches kept strings instead of building them.
const wordsOf = new WeakMap<HistoryRow, string>();
const searchable = (row: HistoryRow): string => {
  let w = wordsOf.get(row);
  if (w === undefined) wordsOf.set(row, (w = rowWords(row).toLowerCase()));
  return w;
};

const inCell = (row: HistoryRow, cell: string): boolean => !!row.key && (row.key === cell || (!cell.includes('/') && row.key.startsWith(`${cell}/`)));

/** Whether a row passes the filter (its words are computed only when a text filter asks). */
export function rowMatches(row: HistoryRow, f: HistoryFilter): boolean {
  if (f.since != null && row.at < f.since && !(row.run?.endedAt != null && row.run.endedAt >= f.since)) return false;
  if (f.cell && !inCell(row, f.cell)) return false;
  if (f.text) {
    const words = searchable(row);
    return f.text
      .toLowerCase()
      .split(/\s+/)
      .filter(Boolean)
      .every((w) => words.includes(w));
  }
  return true;
}

/** The indexes of the rows that pass, in order: a view windows over them without copying rows. */
export function filterRows(rows: readonly HistoryRow[], f: HistoryFilter): number[] {
  const out: number[] = [];
  for (let i = 0; i < rows.length; i++) if (rowMatches(rows[i], f)) out.push(i);
  return out;
}
