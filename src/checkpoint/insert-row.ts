import type { Claim, PipelineDef } from '../types.js';
import { CLAIM_GLYPH } from './glyphs.js';
import { parseCheckpointDetailed } from './parse.js';
import { isTableLine, splitRow } from './table.js';
import { join, replaceCell, splitKeepingEol, type CellEdit, type Line } from './update-cell.js';

// A unit with no row in checkpoint.md (a chapter first seen on disk) gets one row, added in
// place, so the user's notes, unknown columns and layout stay byte for byte: a full rewrite
// would rebuild the file from what checkroom understands and drop the rest. The row goes
// where the file's layout keeps the unit's batch: at the end of its `### Batch N` table, or
// for a unit of no batch at the end of the table under no heading — a new one, with the
// header of the first batch table, just before the first `### Batch` heading when there is
// none (parse reads rows under no batch heading as no batch). When there is no such place
// (no table to copy, or no section for the batch) the caller rebuilds the file.

/** A copy of `row` (a data or header line) with every cell replaced, keeping its widths. */
export const cloneRow = (row: string, contents: string[]): string => {
  const cells = splitRow(row);
  let out = row;
  for (let j = cells.length - 1; j >= 0; j--) {
    const c = cells[j];
    out = out.slice(0, c.start) + replaceCell(row.slice(c.start, c.end), contents[j] ?? '') + out.slice(c.end);
  }
  return out;
};

/** Insert `added` after line index `at` (-1: before the first line), in the file's line ends. */
function insertAfter(lines: Line[], at: number, added: string[], eol: string): void {
  const prev = lines[at];
  // After a last line with no line end, the new last line has none either.
  const wasLast = prev !== undefined && prev.eol === '';
  // A file cut between the CR and the LF of its last line end keeps that CR as its own byte:
  // the LF completes it, rather than a second line end after it.
  if (wasLast) prev.eol = prev.body.endsWith('\r') ? '\n' : eol;
  lines.splice(at + 1, 0, ...added.map((body, i) => ({ body, eol: wasLast && i === added.length - 1 ? '' : eol })));
}

/** The 0-based index of the first line of the table that holds line index `i`. */
const tableStart = (lines: Line[], i: number): number => {
  let s = i;
  while (s > 0 && isTableLine(lines[s - 1].body)) s--;
  return s;
};

export function insertCheckpointRow(text: string, unit: string, batch: number | null, claims: Record<string, Claim>, pipeline: PipelineDef): CellEdit {
  const bom = text.startsWith('\uFEFF') ? '\uFEFF' : '';
  const { doc, rowColumns } = parseCheckpointDetailed(text, pipeline);
  if (doc.batches.some((b) => b.rows.some((r) => r.unit === unit))) return { text, changed: false };
  const lines = splitKeepingEol(text.slice(bom.length));
  const eol = doc.layout.eol;
  const rowFor = (like: string, cols: (string | null)[]): string =>
    cloneRow(like, cols.map((step, j) => (j === 0 ? unit : step ? CLAIM_GLYPH[claims[step] ?? 'not_started'] : '')));
  const target = doc.batches.find((b) => b.id === batch);
  const last = target?.rows.reduce((a, r) => (r.line > a.line ? r : a), target.rows[0]);
  if (last) {
    const cols = rowColumns.get(last.line)!;
    insertAfter(lines, last.line - 1, [rowFor(lines[last.line - 1].body, cols)], eol);
    return { text: join(bom, lines), changed: true };
  }
  if (batch !== null || target) return { text, changed: false, warning: `no table for ${batch === null ? 'units of no batch' : `Batch ${batch}`} to add ${unit} to` };
  // No table of no batch yet: one just before the first batch heading (anything after a
  // heading is that batch's), with the header of the first batch table that has a row.
  const headed = doc.batches.filter((b) => b.id !== null).sort((a, b) => a.line - b.line);
  const like = headed.find((b) => b.rows.length > 0);
  if (!like) return { text, changed: false, warning: `no table to add ${unit} to` };
  const row = like.rows[0];
  const start = tableStart(lines, row.line - 1);
  if (start <= like.line - 1) return { text, changed: false, warning: `no table under the Batch ${like.id} heading to copy for ${unit}` };
  const head = lines.slice(start, row.line - 1).map((l) => l.body);
  insertAfter(lines, headed[0].line - 2, [...head, rowFor(lines[row.line - 1].body, rowColumns.get(row.line)!), ''], eol);
  return { text: join(bom, lines), changed: true };
}
