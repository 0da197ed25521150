import type { Lang, PhaseStatus, PipelineDef } from '../types.js';
import type { CheckpointDoc, CheckpointRow, ClaimOf } from './types.js';
import type { CheckpointParse, RowColumns } from './parse.js';
import type { LineEdits } from './line-edits.js';
import { CLAIM_GLYPH, readClaim, statusText } from './glyphs.js';
import { VOCAB } from './i18n.js';
import { batchBlock } from './render.js';
import { cloneRow } from './insert-row.js';
import { replaceCell } from './update-cell.js';
import { isTableLine, splitRow } from './table.js';
import { sectionEnd, tableEnd } from './revise-lines.js';
import { widenTables } from './revise-columns.js';

// The unit rows of a checkpoint rewrite, in place: a row the file has gets
// its step cells set, one by one, and keeps every other cell (a column checkroom does not
// know, リサーチ or 备注, stays with its values). A unit with no row gets one at the end of its
// batch's table; a batch with no table gets one, under its heading or as a new `### Batch N`
// after the last batch. New tables copy the file's own header row (its labels, its extra
// columns), so the file reads the same way after the rewrite as before.

/**
 * Set the step cells of the row on line `i`; cells that already say the claim stay byte for
 * byte. A row shorter than its header gets the missing cells appended (blank under a column
 * that is no step), so the claims the header promises are written, not silently absent.
 */
function setCells(ed: LineEdits, i: number, cols: RowColumns, unit: string, claimOf: ClaimOf): void {
  let body = ed.body(i);
  const cells = splitRow(body);
  if (cells.length < cols.length) {
    const added = cols.slice(cells.length).map((step) => {
      const claim = step ? claimOf(unit, step) : undefined;
      return claim ? CLAIM_GLYPH[claim] : '';
    });
    const end = body.trimEnd();
    const rest = body.slice(end.length);
    body = end.endsWith('|') && !end.endsWith('\\|') ? `${end}${added.map((c) => ` ${c} |`).join('')}${rest}` : `${end}${added.map((c) => ` | ${c}`).join('')}${rest}`;
  }
  for (let j = cells.length - 1; j >= 1; j--) {
    const step = cols[j];
    const claim = step ? claimOf(unit, step) : undefined;
    if (claim === undefined || readClaim(cells[j].text) === claim) continue;
    const c = cells[j];
    body = body.slice(0, c.start) + replaceCell(body.slice(c.start, c.end), CLAIM_GLYPH[claim]) + body.slice(c.end);
  }
  ed.set(i, body);
}

interface Template {
  head: string[];
  row: string;
  cols: RowColumns;
}

/** The first table of the file with a header and a unit row: new tables copy its header. */
function template(ed: LineEdits, doc: CheckpointDoc, rowColumns: Map<number, RowColumns>): Template | null {
  const rows = doc.batches.flatMap((b) => b.rows).sort((a, b) => a.line - b.line);
  for (const r of rows) {
    let s = r.line - 1;
    while (s > 0 && isTableLine(ed.body(s - 1))) s--;
    if (s < r.line - 1) return { head: Array.from({ length: r.line - 1 - s }, (_, k) => ed.body(s + k)), row: ed.body(r.line - 1), cols: rowColumns.get(r.line) ?? [] };
  }
  return null;
}

const lastRow = (rows: CheckpointRow[]): CheckpointRow | undefined => rows.reduce<CheckpointRow | undefined>((a, r) => (a && a.line > r.line ? a : r), undefined);

export function reviseRows(ed: LineEdits, fence: boolean[], parsed: CheckpointParse, want: CheckpointDoc, pipeline: PipelineDef, lang: Lang, claimOf: ClaimOf): void {
  const { doc, rowColumns } = parsed;
  const rowOf = new Map(doc.batches.flatMap((b) => b.rows.map((r) => [r.unit, r] as const)));
  const missing = new Map<number | null, string[]>();
  for (const b of want.batches) {
    for (const r of b.rows) {
      const have = rowOf.get(r.unit);
      if (have) setCells(ed, have.line - 1, rowColumns.get(have.line) ?? [], r.unit, claimOf);
      else if (!missing.has(b.id)) missing.set(b.id, [r.unit]);
      else missing.get(b.id)!.push(r.unit);
    }
  }
  const cols = widenTables(ed, want, rowColumns, pipeline, lang, claimOf);
  if (!missing.size) return;
  const tpl = template(ed, doc, cols);
  const glyph = (unit: string, step: string): string => CLAIM_GLYPH[claimOf(unit, step) ?? 'not_started'];
  const rowLike = (like: string, cols: RowColumns, unit: string): string => cloneRow(like, cols.map((step, j) => (j === 0 ? unit : step ? glyph(unit, step) : '')));
  const columns = want.batches.find((b) => b.columns.length)?.columns ?? [];
  const table = (units: string[]): string[] =>
    tpl
      ? [...tpl.head, ...units.map((u) => rowLike(tpl.row, tpl.cols, u))]
      : batchBlock({ id: null, status: null, columns, rows: units.map((u) => ({ unit: u, claims: Object.fromEntries(columns.map((s) => [s, claimOf(u, s) ?? 'not_started'])), line: 0 })), line: 0 }, pipeline, lang);
  const heading = (id: number, status: PhaseStatus | null): string => (status ? `### Batch ${id} — ${statusText(status, VOCAB[lang].status[status])}` : `### Batch ${id}`);
  const headed = doc.batches.filter((b) => b.id !== null).sort((a, b) => a.line - b.line);
  for (const [id, units] of missing) {
    const have = doc.batches.find((b) => b.id === id);
    const last = have && lastRow(have.rows);
    if (last) {
      const like = cols.get(last.line) ?? [];
      ed.insertAfter(last.line - 1, units.map((u) => rowLike(ed.body(last.line - 1), like, u)));
    } else if (have && id !== null) {
      ed.insertAfter(have.line - 1, table(units));
    } else if (id === null && headed.length) {
      // Rows under no batch heading are units of no batch: a table just before the first heading.
      ed.insertAfter(headed[0].line - 2, [...table(units), '']);
    } else {
      const w = want.batches.find((b) => b.id === id);
      const block = [...(id === null ? [] : [heading(id, w?.status ?? null)]), ...table(units)];
      // Batches in their order: before the first batch heading with a greater number, else after the last batch.
      const next = id === null ? undefined : headed.find((b) => b.id! > id);
      if (next) ed.insertAfter(next.line - 2, [...block, '']);
      else ed.insertAfter(newBatchAt(ed, fence, doc, columns, pipeline), ['', ...block]);
    }
  }
}

/** Where a new batch goes: after the last batch's table; else under the unit phase; else at the end. */
function newBatchAt(ed: LineEdits, fence: boolean[], doc: CheckpointDoc, columns: string[], pipeline: PipelineDef): number {
  const ends = doc.batches.map((b) => tableEnd(ed, Math.max(b.line, lastRow(b.rows)?.line ?? 0) - 1));
  if (ends.length) return Math.max(...ends);
  const unitPhase = pipeline.steps.find((s) => columns.includes(s.id))?.phase;
  const phase = doc.phases.find((p) => p.id === unitPhase) ?? doc.phases[doc.phases.length - 1];
  if (phase) return sectionEnd(ed, phase.line - 1, fence);
  let k = ed.count - 1;
  while (k > 0 && ed.body(k).trim() === '') k--;
  return k;
}
