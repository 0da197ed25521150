import type { Cell } from '../types.js';
import { cellKey } from '../types.js';
import type { PlanShape } from '../plan/unit-plan.js';
import type { CutMap } from '../triage/cut-evidence.js';

// What one cell says about where the work stopped. A cell whose proof was
// lost (checkpoint.md says ✅, or a step that needs it is done, and yet the disk has no
// marker) is a regression: work that was finished once, not the point where work was cut
// off. Per unit, so the live derivation re-reads only the units an event touches.

/** A cell whose proof of done was lost: listed as such, never taken for the interruption point. */
export interface Regression {
  unit: string;
  step: string;
  batch: number | null;
  path: string;
  /** `marker`: the file is there without its marker; `file`: the file is gone; `entry`: the unit's long-memory entry is gone. */
  lost: 'marker' | 'file' | 'entry';
  /** Who says it was done: checkpoint.md's ✅, or a later step of the unit that is done. */
  evidence: 'checkpoint' | 'downstream';
}

/** One cell's part in where the work stopped. */
export type WhereKind = 'done' | 'running' | 'cut' | 'active' | 'regress' | 'idle';

/** Counts of a phase or a batch, kept by delta in the live path. */
export interface WhereTally {
  total: number;
  done: number;
  /** Work in progress that is no regression: running, cut, ⏳, half-product, failed, escalated. */
  active: number;
  running: number;
  /** Cells whose last run the journal saw cut by an interruption (reaped at a restart, or lost). */
  cut: number;
  regress: number;
}

export const emptyWhere = (): WhereTally => ({ total: 0, done: 0, active: 0, running: 0, cut: 0, regress: 0 });

/** The regressions among one unit's cells (in step order). */
export function unitRegressions(cells: readonly Cell[], shape: Pick<PlanShape, 'dependents' | 'stepById'>): Regression[] {
  let doneSteps: Set<string> | null = null;
  const out: Regression[] = [];
  for (const c of cells) {
    if (c.status === 'done' || c.status === 'running') continue;
    let evidence: Regression['evidence'] | null = c.checkpoint === 'done' ? 'checkpoint' : null;
    if (!evidence) {
      doneSteps ??= new Set(cells.filter((x) => x.status === 'done').map((x) => x.step));
      if ((shape.dependents.get(c.step) ?? []).some((d) => doneSteps!.has(d))) evidence = 'downstream';
    }
    if (!evidence) continue;
    const lost = shape.stepById.get(c.step)?.kind === 'entry' ? 'entry' : c.exists && c.disk !== 'missing' ? 'marker' : 'file';
    out.push({ unit: c.unit, step: c.step, batch: c.batch, path: c.path, lost, evidence });
  }
  return out;
}

const STOPPED_BY = new Set(['reaped', 'lost']);

/** What a cell says; `lost`: the steps of its unit that are regressions. */
export function whereKind(c: Cell, lost: ReadonlySet<string>, cuts: CutMap | undefined): WhereKind {
  if (c.status === 'done') return 'done';
  if (c.status === 'running') return 'running';
  if (lost.has(c.step)) return 'regress';
  const cut = cuts?.get(cellKey(c.unit, c.step));
  if (cut && STOPPED_BY.has(cut.event)) return 'cut';
  return c.status !== 'not_started' || c.checkpoint === 'in_progress' ? 'active' : 'idle';
}

/** Move a tally by one cell's kind, `sign` +1 to add it, -1 to take it away. */
export function countKind(t: WhereTally, k: WhereKind, sign: 1 | -1): void {
  t.total += sign;
  if (k === 'done') t.done += sign;
  else if (k === 'regress') t.regress += sign;
  else if (k !== 'idle') {
    t.active += sign;
    if (k === 'running') t.running += sign;
    if (k === 'cut') t.cut += sign;
  }
}
