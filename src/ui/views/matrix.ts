import type { Cell, WorkspaceState } from '../../types.js';
import { STATUS_WORD } from '../../text/glyphs.js';
import { matchesFilter } from './filter.js';

// The unit × step matrix of a state, kept by delta (a marker took 162 ms to
// reach the screen at 50k files, most of it views re-deriving lists over every cell). A new
// state from the live model keeps its unchanged cells as the same objects (live-derive.ts),
// so the next matrix is the last one with only the rows whose cells changed replaced: one
// pointer comparison per cell, no maps, and the row keys, the row index and the rows of
// unchanged units shared. What no single row decides (the units, the steps, a row entering or
// leaving the filter, a batch) builds the matrix again.

export interface MatrixRow {
  unit: string;
  batch: number | null;
  cells: Cell[];
}

export interface MatrixModel {
  steps: string[];
  rows: MatrixRow[];
  /** Each row's key (its unit), in row order: the Progress view's list. Shared between models whose rows are the same units. */
  keys: string[];
  /** Row position of each unit shown. */
  index: ReadonlyMap<string, number>;
}

const matches = (filter: string, cells: readonly Cell[]): boolean =>
  !filter || cells.some((c) => matchesFilter(filter, c.unit, c.step, STATUS_WORD[c.status], c.triage?.verdict));

/** The cells of unit `i` when the state lays its cells out unit by unit in step order (live-derive.ts does), else null. */
function gridRow(ws: WorkspaceState, steps: readonly string[], i: number): Cell[] | null {
  const n = steps.length;
  const unit = ws.units[i];
  const cells = ws.cells.slice(i * n, i * n + n);
  for (let k = 0; k < n; k++) if (cells[k]?.unit !== unit || cells[k].step !== steps[k]) return null;
  return cells;
}

/** Every row again. */
export function buildMatrix(ws: WorkspaceState, filter: string): MatrixModel {
  const steps = ws.pipeline.steps.map((s) => s.id);
  const grid = ws.cells.length === ws.units.length * steps.length;
  let byUnit: Map<string, Map<string, Cell>> | null = null;
  const cellsOf = (unit: string, i: number): Cell[] | null => {
    const row = grid ? gridRow(ws, steps, i) : null;
    if (row) return row;
    if (!byUnit) {
      byUnit = new Map();
      for (const c of ws.cells) byUnit.set(c.unit, (byUnit.get(c.unit) ?? new Map()).set(c.step, c));
    }
    const m = byUnit.get(unit);
    return m ? steps.map((s) => m.get(s)).filter((c): c is Cell => !!c) : null;
  };
  const rows: MatrixRow[] = [];
  const keys: string[] = [];
  const index = new Map<string, number>();
  ws.units.forEach((unit, i) => {
    const cells = cellsOf(unit, i);
    // A row stays when one of its cells matches all terms (`ch03`, `partial`, `r2 failed`).
    if (!cells || !matches(filter, cells)) return;
    index.set(unit, rows.length);
    rows.push({ unit, batch: cells[0]?.batch ?? null, cells });
    keys.push(unit);
  });
  return { steps, rows, keys, index };
}

/**
 * The matrix of `ws` from the one of `prev` (same filter): `prevModel` itself when no cell
 * changed, a copy with the changed rows replaced otherwise, or null when the change is not
 * one of rows (build it again).
 */
export function updateMatrix(prev: WorkspaceState, prevModel: MatrixModel, ws: WorkspaceState, filter: string): MatrixModel | null {
  if (ws.pipeline !== prev.pipeline || ws.units !== prev.units || ws.cells.length !== prev.cells.length) return null;
  const n = prevModel.steps.length;
  if (n === 0 || ws.cells.length !== ws.units.length * n) return null;
  let rows: MatrixRow[] | null = null;
  const cells = ws.cells;
  const before = prev.cells;
  for (let j = 0; j < cells.length; j++) {
    if (cells[j] === before[j]) continue;
    const i = Math.floor(j / n);
    const unit = ws.units[i];
    const row = gridRow(ws, prevModel.steps, i);
    if (!row) return null;
    const at = prevModel.index.get(unit);
    if ((at !== undefined) !== matches(filter, row)) return null;
    if (at !== undefined) {
      // A batch is the checkpoint's: it changes with the structure, never alone (the label width is kept).
      if ((row[0]?.batch ?? null) !== prevModel.rows[at].batch) return null;
      rows ??= prevModel.rows.slice();
      rows[at] = { unit, batch: prevModel.rows[at].batch, cells: row };
    }
    j = (i + 1) * n - 1;
  }
  return rows ? { steps: prevModel.steps, rows, keys: prevModel.keys, index: prevModel.index } : prevModel;
}
