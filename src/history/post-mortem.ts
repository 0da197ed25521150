import { duration } from '../operator/words.js';
import type { HistoryFold } from './timeline.js';
import { filterRows } from './filter.js';
import { clockOf, money, runFacts } from './words.js';

// A cell's post-mortem (docs/history.md, Post-mortem): every attempt with its class, duration,
// cost and log, and what the operator (or the supervisor) did to the cell between them, in
// time order. Raw workspace text inside: the view sanitizes.

export function postMortemLines(fold: HistoryFold, key: string): string[] {
  const rows = filterRows(fold.rows, { cell: key }).map((i) => fold.rows[i]);
  const runs = rows.flatMap((r) => (r.run ? [r.run] : []));
  const spent = runs.reduce((n, r) => n + (r.costUsd ?? 0), 0);
  const took = runs.reduce((n, r) => n + (r.durationMs ?? 0), 0);
  const head = `${key}: ${runs.length} attempt${runs.length === 1 ? '' : 's'}${took ? ` · ${duration(took)} in all` : ''}${runs.some((r) => r.costUsd !== null) ? ` · ${money(spent)}` : ''}`;
  if (!rows.length) return [head, '  the journal records nothing of this cell (never launched by checkroom)'];
  const lines = [head];
  for (const r of rows) {
    if (!r.run) {
      lines.push(`${clockOf(r.at)} ${r.text}`);
      continue;
    }
    lines.push(`${clockOf(r.at)} attempt ${runFacts(r.run)}`);
    if (r.run.error && r.run.class !== 'SUCCESS') lines.push(`         error: ${r.run.error}`);
    lines.push(`         log: ${r.run.logPath}`);
  }
  return lines;
}
