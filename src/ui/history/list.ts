import { filterRows } from '../../history/filter.js';
import type { HistoryRow } from '../../history/timeline.js';
import type { HistoryUi } from './types.js';

// The History view's list: the rows the `/` filter lets through, newest first, as row indexes
// (their keys). Kept per (fold version, filter): a key, a tick or a message costs nothing, and a
// 100k-row timeline is filtered again only when the journal grew or the filter changed.

let memo: { version: number; fold: unknown; filter: string; rows: number[]; keys: string[] } | null = null;

export function historyRows(h: HistoryUi | undefined, filter: string): { rows: number[]; keys: string[] } {
  const fold = h?.fold ?? null;
  if (!fold) return { rows: [], keys: [] };
  if (memo && memo.fold === fold && memo.version === h!.version && memo.filter === filter) return memo;
  const rows = filterRows(fold.rows, { text: filter }).reverse();
  memo = { version: h!.version, fold, filter, rows, keys: rows.map(String) };
  return memo;
}

/** The row under the History cursor, or null. */
export function historyRowAt(h: HistoryUi | undefined, filter: string, cursor: number): HistoryRow | null {
  const i = historyRows(h, filter).rows[cursor];
  return i === undefined ? null : h!.fold!.rows[i];
}
