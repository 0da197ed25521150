import type { SchedulerFinding, SchedulerSource } from '../../sources/scheduler.js';
import type { Discrepancy, NextStep, PartialFile, TodoView, Warning, WorkspaceState } from '../../types.js';
import { actionWord } from '../../plan/action-words.js';
import { matchesFilter } from '../views/filter.js';
import type { FlightItem } from '../agents/types.js';
import { buildMatrix, updateMatrix, type MatrixModel } from '../views/matrix.js';
import { lastMapped, lastResults, perItem } from './list-memo.js';

// What each view lists, after the filter and the session's skips: pure functions of the
// state, shared by the views (to draw) and the store (to move cursors and act on the
// selected item). Everything here is still raw workspace text; views sanitize.

export type { MatrixModel, MatrixRow } from '../views/matrix.js';

// The matrix of the state last asked for, built from the one before when only rows changed
// (matrix.ts). The store (cursor clamping, the selected row) and the view ask for the same
// state's matrix several times per change; at 50k cells each build was ~8 MB of short-lived
// maps and arrays, against a goal of 150 MB of RSS at 50k and a fast marker → screen
// (docs/performance.md). A state is never changed once published (live-derive.ts builds a new one), so
// its identity is the key.
let lastMatrix: { ws: WorkspaceState; filter: string; model: MatrixModel } | null = null;

/** The unit × step matrix of a state, filtered; shared between callers, so never changed by them. */
export function matrixOf(ws: WorkspaceState, filter: string): MatrixModel {
  const last = lastMatrix;
  if (last?.ws === ws && last.filter === filter) return last.model;
  const model = (last?.filter === filter ? updateMatrix(last.ws, last.model, ws, filter) : null) ?? buildMatrix(ws, filter);
  lastMatrix = { ws, filter, model };
  return model;
}

export interface PartialItem {
  section: 'partial' | 'suspect';
  file: PartialFile;
}

/** Any empty list is the same input (callers pass fresh `[]`s). */
const NONE: readonly never[] = [];
const same = <T>(xs: readonly T[]): readonly T[] => (xs.length ? xs : NONE);

const asPartial = perItem((file: PartialFile): PartialItem => ({ section: 'partial', file }));
const asSuspect = perItem((file: PartialFile): PartialItem => ({ section: 'suspect', file }));
const lastPartials = lastResults<PartialItem[]>();
const partialsAll = lastMapped(asPartial);
const suspectsAll = lastMapped(asSuspect);

/** Half-products, then suspects; the same array while the state's lists, the filter and the skips are the same. */
export function partialItems(ws: WorkspaceState, filter: string, skipped: readonly string[]): PartialItem[] {
  return lastPartials([ws.partials, ws.suspects, filter, same(skipped)], () => {
    const all = !filter.trim() && skipped.length === 0;
    // Unfiltered, each list maps one to one: only what changed since the last one is wrapped.
    if (all) return [...partialsAll(ws.partials), ...suspectsAll(ws.suspects)];
    const keep = (p: PartialFile) => all || (!skipped.includes(p.path) && matchesFilter(filter, p.unit, p.step, p.path, p.verdict, p.reason, 'partial'));
    const out: PartialItem[] = [];
    for (const p of ws.partials) if (keep(p)) out.push(asPartial(p));
    for (const p of ws.suspects) if (keep(p)) out.push(asSuspect(p));
    return out;
  });
}

export interface RedoEntry {
  unit: string;
  step: string;
  path: string;
  backup: string;
  queuedAt: number;
}

export type PlanItem = { kind: 'flight'; flight: FlightItem } | { kind: 'queued'; redo: RedoEntry } | { kind: 'next'; step: NextStep };

const asNext = perItem((step: NextStep): PlanItem => ({ kind: 'next', step }));
const lastPlans = lastResults<PlanItem[]>();
const nextAll = lastMapped(asNext);

/** Cells in flight first (the running set leaves the plan), then queued redos, then the plan. */
/** `next`: the operator model's plan (one entry per cell, src/operator/plan.ts). */
export function planItems(next: readonly NextStep[], filter: string, redoQueue: readonly RedoEntry[], flights: readonly FlightItem[] = []): PlanItem[] {
  return lastPlans([next, filter, same(redoQueue), same(flights)], () => {
    const busy = new Set(flights.map((f) => f.key));
    const all = !filter.trim();
    const out: PlanItem[] = [
      ...flights.filter((f) => matchesFilter(filter, f.unit, f.step, f.state, 'running')).map((flight) => ({ kind: 'flight' as const, flight })),
      ...redoQueue.filter((r) => !busy.has(`${r.unit}/${r.step}`) && matchesFilter(filter, r.unit, r.step, r.path, 'queued redo')).map((redo) => ({ kind: 'queued' as const, redo })),
    ];
    if (all) return out.length ? [...out, ...nextAll(next)] : nextAll(next);
    for (const n of next) if (matchesFilter(filter, n.unit, n.step, n.action, actionWord(n.action), n.reason, `p${n.priority}`)) out.push(asNext(n));
    return out;
  });
}

export type SourceItem =
  | { kind: 'discrepancy'; d: Discrepancy }
  | { kind: 'todo'; t: TodoView['disagreements'][number] }
  | { kind: 'ready'; r: TodoView['readyContradicted'][number] }
  | { kind: 'dangling'; dep: TodoView['dangling'][number] }
  | { kind: 'resume'; text: string }
  | { kind: 'warning'; w: Warning }
  /** The scheduler against the cells (a job for a done cell, ⏳ with no job, a job nobody launched). */
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
      .filter((f) => matchesFilter(filter, f.unit, f.step, f.note, 'scheduler', scheduler?.executor))
      .map((f) => ({ kind: 'scheduler' as const, f })),
    ...[...(todos?.warnings ?? []), ...ws.warnings].filter((w) => matchesFilter(filter, w.source, w.message, 'warning')).map((w) => ({ kind: 'warning' as const, w })),
  ];
}
