import stringWidth from 'string-width';
import type { Lang, PipelineDef } from '../types.js';
import type { CheckpointDoc, ClaimOf } from './types.js';
import type { RowColumns } from './parse.js';
import type { LineEdits } from './line-edits.js';
import { CLAIM_GLYPH } from './glyphs.js';
import { stepHeading } from './i18n.js';
import { cleanUnit, isSeparatorRow, isTableLine, splitRow } from './table.js';

// A table that lacks a step column its batch has (a narrow `### Batch 3` table while the
// launcher marks an R1 review there) gets the column, in pipeline order after the step it
// follows, with its heading in the file's language and a cell in every row; every other cell
// and column stays as it was. Without it a rewrite could not record the
// claim, and the launcher's one-cell edit after it had no cell to set.

/** Put `added` (index after which, the raw cell between its pipes) into a table line, keeping every other byte. */
function withCells(line: string, added: { after: number; text: string }[]): string {
  const cells = splitRow(line);
  let out = line;
  // Right to left, so earlier offsets stay valid; at one place the later text goes in first.
  for (const a of [...added].reverse().sort((x, y) => y.after - x.after)) {
    const c = cells[Math.min(a.after, cells.length - 1)];
    if (!c) continue;
    out = c.end < line.length ? `${out.slice(0, c.end + 1)}${a.text}|${out.slice(c.end + 1)}` : `${out}|${a.text}`;
  }
  return out;
}

/**
 * Widen the tables of `rowLines` (1-based lines of unit rows) to the step columns their batch
 * has in `want`; returns the row → column mapping as it is after the change.
 */
export function widenTables(ed: LineEdits, want: CheckpointDoc, rowColumns: Map<number, RowColumns>, pipeline: PipelineDef, lang: Lang, claimOf: ClaimOf): Map<number, RowColumns> {
  const out = new Map(rowColumns);
  const batchOf = new Map(want.batches.flatMap((b) => b.rows.map((r) => [r.unit, b.columns] as const)));
  const done = new Set<number>();
  for (const line of [...rowColumns.keys()].sort((a, b) => a - b)) {
    if (done.has(line)) continue;
    let s = line - 1;
    while (s > 0 && isTableLine(ed.body(s - 1))) s--;
    let e = line - 1;
    while (e + 1 < ed.count && isTableLine(ed.body(e + 1))) e++;
    for (let i = s; i <= e; i++) done.add(i + 1);
    const cols = rowColumns.get(line)!;
    const unit = cleanUnit(splitRow(ed.body(line - 1))[0]?.text ?? '');
    const steps = batchOf.get(unit) ?? [];
    // Only a table with its own header row is widened: a headless one borrows another's columns.
    if (s === line - 1) continue;
    const lacking = steps.filter((st) => !cols.includes(st));
    if (!lacking.length) continue;
    const order = pipeline.steps.map((st) => st.id);
    const adds = lacking.map((step) => {
      const before = order.slice(0, order.indexOf(step));
      let after = 0;
      cols.forEach((c, j) => {
        if (c && before.includes(c)) after = j;
      });
      return { step, after, heading: stepHeading(pipeline.steps.find((st) => st.id === step), step, lang) };
    });
    const width = (a: (typeof adds)[number]): number => Math.max(stringWidth(a.heading), 2);
    const pad = (t: string, w: number): string => t + ' '.repeat(Math.max(0, w - stringWidth(t)));
    const grown: RowColumns = [...cols];
    // The same order withCells writes them in: at one place, the first step ends up first.
    for (const a of [...adds].reverse().sort((x, y) => y.after - x.after)) grown.splice(a.after + 1, 0, a.step);
    for (let i = s; i <= e; i++) {
      const body = ed.body(i);
      const cells = splitRow(body);
      const isRow = rowColumns.has(i + 1);
      const cell = (a: (typeof adds)[number]): string => {
        if (i === s) return ` ${pad(a.heading, width(a))} `;
        // A separator in the file's style: `|------|` or `| ---- |`.
        if (isSeparatorRow(cells)) return body.slice(cells[0].start, cells[0].end).startsWith(' ') ? ` ${'-'.repeat(width(a))} ` : '-'.repeat(width(a) + 2);
        const u = cleanUnit(cells[0]?.text ?? '');
        return ` ${pad(isRow ? CLAIM_GLYPH[claimOf(u, a.step) ?? 'not_started'] : '', width(a))} `;
      };
      ed.set(i, withCells(body, adds.map((a) => ({ after: a.after, text: cell(a) }))));
      if (isRow) out.set(i + 1, grown);
    }
  }
  return out;
}
