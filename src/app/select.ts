import type { Cell, Discrepancy, NextStep, PartialFile, Warning, WorkspaceState } from '../types.js';
import { STATUS_WORD } from '../glyphs.js';
import { matchesFilter } from './filter.js';

// What each view lists, after the filter and the session's skips: pure functions of the
// state, shared by the views (to draw) and the store (to move cursors and act on the
// selected item). Everything here is still raw workspace text; views sanitize.

export interface MatrixRow {
  unit: string;
  batch: number | null;
  cells: Cell[];
}

export interface MatrixModel {
  steps: string[];
  rows: MatrixRow[];
}

export function matrixOf(ws: WorkspaceState, filter: string): MatrixModel {
  const steps = ws.pipeline.steps.map((s) => s.id);
  const byUnit = new Map<string, Map<string, Cell>>();
  for (const c of ws.cells) byUnit.set(c.unit, (byUnit.get(c.unit) ?? new Map()).set(c.step, c));
  const rows: MatrixRow[] = [];
  for (const unit of ws.units) {
    const m = byUnit.get(unit);
    if (!m) continue;
    const cells = steps.map((s) => m.get(s)).filter((c): c is Cell => !!c);
    // A row stays when one of its cells matches all terms (`ch03`, `partial`, `r2 failed`).
    if (filter && !cells.some((c) => matchesFilter(filter, c.unit, c.step, STATUS_WORD[c.status], c.triage?.verdict))) continue;
    rows.push({ unit, batch: cells[0]?.batch ?? null, cells });
  }
  return { steps, rows };
}

export interface PartialItem {
  section: 'partial' | 'suspect';
  file: PartialFile;
}

export function partialItems(ws: WorkspaceState, filter: string, skipped: readonly string[]): PartialItem[] {
  const keep = (p: PartialFile) => !skipped.includes(p.path) && matchesFilter(filter, p.unit, p.step, p.path, p.verdict, p.reason, 'partial');
  return [
    ...ws.partials.filter(keep).map((file) => ({ section: 'partial' as const, file })),
    ...ws.suspects.filter(keep).map((file) => ({ section: 'suspect' as const, file })),
  ];
}

export interface RedoEntry {
  unit: string;
  step: string;
  path: string;
  backup: string;
  queuedAt: number;
}

export type PlanItem = { kind: 'queued'; redo: RedoEntry } | { kind: 'next'; step: NextStep };

export function planItems(ws: WorkspaceState, filter: string, redoQueue: readonly RedoEntry[]): PlanItem[] {
  return [
    ...redoQueue.filter((r) => matchesFilter(filter, r.unit, r.step, r.path, 'queued redo')).map((redo) => ({ kind: 'queued' as const, redo })),
    ...ws.next.filter((n) => matchesFilter(filter, n.unit, n.step, n.action, n.reason, `p${n.priority}`)).map((step) => ({ kind: 'next' as const, step })),
  ];
}

export type SourceItem = { kind: 'discrepancy'; d: Discrepancy } | { kind: 'warning'; w: Warning };

export function sourceItems(ws: WorkspaceState, filter: string): SourceItem[] {
  return [
    ...ws.discrepancies.filter((d) => matchesFilter(filter, d.unit, d.step, d.checkpoint, d.disk, d.note)).map((d) => ({ kind: 'discrepancy' as const, d })),
    ...ws.warnings.filter((w) => matchesFilter(filter, w.source, w.message, 'warning')).map((w) => ({ kind: 'warning' as const, w })),
  ];
}
