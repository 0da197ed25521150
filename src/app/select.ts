import type { SchedulerFinding, SchedulerSource } from '../sources/scheduler.js';
import type { Cell, Discrepancy, NextStep, PartialFile, TodoView, Warning, WorkspaceState } from '../types.js';
import { STATUS_WORD } from '../glyphs.js';
import { actionWord } from '../plan/action-words.js';
import { matchesFilter } from './filter.js';
import type { FlightItem } from './agents-types.js';

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

// The matrix of the state last asked for. The store (cursor clamping, the selected row) and
// the view ask for the same state's matrix several times per change; at 50k cells each build
// was ~8 MB of short-lived maps and arrays, promoted into the old generation when a scavenge
// caught them half-built (issue 10 goal: control room RSS at 50k ≤ 150 MB). A state is never
// changed once published (live-derive.ts builds a new one), so its identity is the key.
let lastMatrix: { ws: WorkspaceState; filter: string; model: MatrixModel } | null = null;

/** The unit × step matrix of a state, filtered; shared between callers, so never changed by them. */
export function matrixOf(ws: WorkspaceState, filter: string): MatrixModel {
  if (lastMatrix?.ws !== ws || lastMatrix.filter !== filter) lastMatrix = { ws, filter, model: buildMatrix(ws, filter) };
  return lastMatrix.model;
}

function buildMatrix(ws: WorkspaceState, filter: string): MatrixModel {
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

export type PlanItem = { kind: 'flight'; flight: FlightItem } | { kind: 'queued'; redo: RedoEntry } | { kind: 'next'; step: NextStep };

/** Cells in flight first (the running set leaves the plan), then queued redos, then the plan. */
/** `next`: the operator model's plan (one entry per cell, src/operator/plan.ts). */
export function planItems(next: readonly NextStep[], filter: string, redoQueue: readonly RedoEntry[], flights: readonly FlightItem[] = []): PlanItem[] {
  const busy = new Set(flights.map((f) => f.key));
  return [
    ...flights.filter((f) => matchesFilter(filter, f.unit, f.step, f.state, 'running')).map((flight) => ({ kind: 'flight' as const, flight })),
    ...redoQueue.filter((r) => !busy.has(`${r.unit}/${r.step}`) && matchesFilter(filter, r.unit, r.step, r.path, 'queued redo')).map((redo) => ({ kind: 'queued' as const, redo })),
    ...next.filter((n) => matchesFilter(filter, n.unit, n.step, n.action, actionWord(n.action), n.reason, `p${n.priority}`)).map((step) => ({ kind: 'next' as const, step })),
  ];
}

export type SourceItem =
  | { kind: 'discrepancy'; d: Discrepancy }
  | { kind: 'todo'; t: TodoView['disagreements'][number] }
  | { kind: 'ready'; r: TodoView['readyContradicted'][number] }
  | { kind: 'dangling'; dep: TodoView['dangling'][number] }
  | { kind: 'resume'; text: string }
  | { kind: 'warning'; w: Warning }
  /** Issue 12: the scheduler against the cells (a job for a done cell, ⏳ with no job, a job nobody launched). */
  | { kind: 'scheduler'; f: SchedulerFinding | { kind: 'error'; unit: ''; step: ''; jobId: null; note: string } };

/** Sources view rows: level 1 vs the disk, level 2 vs the disk, RESUME.md drift (`resume`), then warnings. */
export function sourceItems(ws: WorkspaceState, filter: string, resume: readonly string[] = [], scheduler: SchedulerSource | null = null): SourceItem[] {
  const todos = ws.todos;
  return [
    ...ws.discrepancies.filter((d) => matchesFilter(filter, d.unit, d.step, d.checkpoint, d.disk, d.note)).map((d) => ({ kind: 'discrepancy' as const, d })),
    ...(todos?.disagreements ?? []).filter((t) => matchesFilter(filter, t.unit, t.step, t.todoId, t.todo, t.disk, t.note, 'todo')).map((t) => ({ kind: 'todo' as const, t })),
    ...(todos?.readyContradicted ?? []).filter((r) => matchesFilter(filter, r.unit ?? '', r.step ?? '', r.todoId, r.note, 'ready')).map((r) => ({ kind: 'ready' as const, r })),
    ...(todos?.dangling ?? []).filter((d) => matchesFilter(filter, d.todo_id, d.depends_on, 'dangling')).map((dep) => ({ kind: 'dangling' as const, dep })),
    ...resume.filter((text) => matchesFilter(filter, text, 'resume')).map((text) => ({ kind: 'resume' as const, text })),
    ...(scheduler?.error ? [{ kind: 'error' as const, unit: '' as const, step: '' as const, jobId: null, note: `${scheduler.executor}: ${scheduler.error}` }] : (scheduler?.findings ?? []))
      .filter((f) => matchesFilter(filter, f.unit, f.step, f.note, 'scheduler', 'slurm'))
      .map((f) => ({ kind: 'scheduler' as const, f })),
    ...[...(todos?.warnings ?? []), ...ws.warnings].filter((w) => matchesFilter(filter, w.source, w.message, 'warning')).map((w) => ({ kind: 'warning' as const, w })),
  ];
}
