import type { JournalEvent } from '../run/journal/journal.js';
import { planNext } from '../plan/plan.js';
import { statusOfCounts } from '../state/derive.js';
import { cellKey, type BatchDef, type Cell, type CellStatus, type WorkspaceState } from '../types.js';

// Time travel (docs/history.md, Time travel): the pipeline as it was at a moment, rebuilt from
// the journal. The journal records what checkroom launched and what came of it, not the disk:
// a cell is shown from its last journalled event before the moment; a cell the journal first
// speaks of after the moment had not been started by checkroom then; a cell it never speaks of
// is shown as it is now and counted as not journalled, so the header can say so.

export interface PastCells {
  at: number;
  /** Cell key → its status at `at`, for the cells the journal speaks of. */
  status: Map<string, CellStatus>;
}

/** Cell statuses at `at` from the journal's events (in order; events after `at` only mark cells as journalled). */
export function pastCells(events: readonly JournalEvent[], at: number): PastCells {
  const status = new Map<string, CellStatus>();
  const set = (key: string, s: CellStatus, e: JournalEvent) => status.set(key, e.at <= at ? s : (status.get(key) ?? 'not_started'));
  for (const e of events) {
    switch (e.type) {
      case 'launch':
        set(cellKey(e.unit, e.step), 'running', e);
        break;
      case 'exit': {
        const key = cellKey(e.unit, e.step);
        // A cancel leaves the cell as the attempt found it: done stays done, else not started.
        const was = status.get(key);
        set(key, e.class === 'SUCCESS' ? 'done' : e.class === 'CANCELLED' ? (was === 'done' ? 'done' : 'not_started') : 'failed', e);
        break;
      }
      case 'escalate':
        set(cellKey(e.unit, e.step), 'needs_human', e);
        break;
      case 'decision':
        if (e.kind === 'reset_cell' && e.unit !== undefined && e.step !== undefined) set(cellKey(e.unit, e.step), 'not_started', e);
        break;
    }
  }
  return { at, status };
}

/** The workspace at the moment: cells, phases, batches and the plan of that moment; `notJournalled`: cells shown as now. */
export function pastState(ws: WorkspaceState, past: PastCells): { ws: WorkspaceState; notJournalled: number } {
  let notJournalled = 0;
  const cells: Cell[] = ws.cells.map((c) => {
    const s = past.status.get(cellKey(c.unit, c.step));
    if (s === undefined) {
      notJournalled++;
      return c;
    }
    return { ...c, status: s, blockedBy: [] };
  });
  const stepPhase = new Map(ws.pipeline.steps.map((s) => [s.id, s.phase]));
  const tally = (keep: (c: Cell) => boolean) => {
    const mine = cells.filter(keep);
    const done = mine.filter((c) => c.status === 'done').length;
    return { done, total: mine.length, touched: mine.some((c) => c.status !== 'not_started') };
  };
  // Phases with artifacts keep today's count: artifacts are not journalled.
  const phases = ws.phases.map((p) => {
    if (p.missing.length || !ws.cells.some((c) => stepPhase.get(c.step) === p.id)) return p;
    const t = tally((c) => stepPhase.get(c.step) === p.id);
    return { ...p, done: t.done, total: t.total, status: statusOfCounts(t.done, t.total, t.touched) };
  });
  const batchedPhase = Math.min(...ws.pipeline.steps.map((s) => s.phase));
  const batches = ws.batches.map((b) => {
    const units = new Set(b.units);
    const t = tally((c) => units.has(c.unit) && stepPhase.get(c.step) === batchedPhase);
    return { ...b, done: t.done, total: t.total, status: statusOfCounts(t.done, t.total, t.touched) };
  });
  const defs: BatchDef[] = ws.batches.flatMap((b) => (b.id === null ? [] : [{ id: b.id, units: b.units }]));
  const next = planNext({ pipeline: ws.pipeline, units: ws.units, cells, partials: [], batches: defs, missingArtifacts: new Map() });
  return {
    ws: {
      ...ws,
      cells,
      phases,
      batches,
      next,
      partials: [],
      suspects: [],
      discrepancies: [],
      currentBatch: batches.find((b) => b.status !== 'done' && b.id !== null)?.id ?? null,
    },
    notJournalled,
  };
}
