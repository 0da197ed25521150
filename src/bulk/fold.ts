import { cellKey } from '../types.js';
import { newCell, type CellLedger } from '../run/journal/ledger.js';
import { type BulkActionEvent, type BulkCellRef, type BulkLedger, type BulkRecord, type BulkUndoEvent, emptyBulk, MAX_BULK } from './events.js';

export { emptyBulk, MAX_BULK, type BulkLedger, type BulkRecord } from './events.js';

// The ledger's part of set actions (docs/redrive.md, Undo): the named actions, the relaunch
// queue, the skipped cells, and — kept in the fold, never in the journal — each cell as it was
// before a reset or relaunch counted it anew, so an undo gives its attempts back from the
// ledger itself. Replaying the same journal rebuilds the same priors (ledger-fold.ts).

/** How the fold reaches the ledger's cells (ledger-fold.ts hands its copy-on-write access). */
export interface CellAccess {
  peek(key: string): CellLedger | undefined;
  /** The cell, safe to change in place (created when new). */
  edit(unit: string, step: string): CellLedger;
  replace(cell: CellLedger): void;
}

const copyOf = (c: CellLedger): CellLedger => ({ ...c, attempts: [...c.attempts] });

/** Does this hold action still hold the cell? Not when released or held again since: that later decision stands. */
export const holdsCell = (rec: Pick<BulkRecord, 'at'>, cell: Pick<CellLedger, 'hold'> | undefined): boolean => cell?.hold?.at === rec.at;

export class BulkFold {
  private state: BulkLedger = emptyBulk();
  /** Per action id: each cell before the action counted it anew (undefined: no ledger yet). */
  private readonly priors = new Map<string, Map<string, CellLedger | undefined>>();
  private readonly holdPriors = new Map<string, Map<string, CellLedger['hold']>>();

  view(): BulkLedger {
    return this.state;
  }

  act(e: BulkActionEvent, cells: CellAccess): void {
    const keys = e.cells.map((c) => cellKey(c.unit, c.step));
    let { queue, skipped } = this.state;
    if (e.action === 'reset' || e.action === 'relaunch') {
      const before = new Map<string, CellLedger | undefined>();
      for (const c of e.cells) {
        const cur = cells.peek(cellKey(c.unit, c.step));
        before.set(cellKey(c.unit, c.step), cur && copyOf(cur));
        const own = cells.edit(c.unit, c.step);
        // A run in flight stays visible; everything counted is forgotten (as reset_cell).
        cells.replace({ ...newCell(c.unit, c.step), agent: own.agent, runId: own.runId, state: own.runId ? 'running' : 'idle' });
      }
      this.priors.set(e.id, before);
      if (e.action === 'relaunch') queue = { ...queue, ...Object.fromEntries(keys.map((k) => [k, { id: e.id, name: e.name }])) };
    } else if (e.action === 'hold') {
      const before = new Map<string, CellLedger['hold']>();
      for (const c of e.cells) {
        const own = cells.edit(c.unit, c.step);
        before.set(own.key, own.hold);
        own.hold = { at: e.at, why: `held by ${e.name}` };
      }
      this.holdPriors.set(e.id, before);
    } else {
      skipped = { ...skipped, ...Object.fromEntries(keys.map((k) => [k, { id: e.id, name: e.name, at: e.at }])) };
    }
    const rec: BulkRecord = { id: e.id, name: e.name, action: e.action, filter: e.filter, at: e.at, cells: e.cells, undoneAt: null, launched: [] };
    this.state = { actions: [...this.state.actions.filter((a) => a.id !== e.id), rec].slice(-MAX_BULK), queue, skipped };
  }

  /** A launch takes its cell out of the relaunch queue: it ran, and an undo leaves it. */
  launched(unit: string, step: string): void {
    const key = cellKey(unit, step);
    const q = this.state.queue[key];
    if (!q) return;
    const { [key]: _gone, ...queue } = this.state.queue;
    const actions = this.state.actions.map((a) => (a.id === q.id ? { ...a, launched: [...a.launched, key] } : a));
    this.state = { ...this.state, queue, actions };
  }

  undo(e: BulkUndoEvent, cells: CellAccess): void {
    const rec = this.state.actions.find((a) => a.id === e.id);
    if (!rec || rec.undoneAt !== null) return;
    let { queue, skipped } = this.state;
    const keys = rec.cells.map((c) => cellKey(c.unit, c.step));
    if (rec.action === 'reset' || rec.action === 'relaunch') {
      const before = this.priors.get(rec.id);
      // Relaunch: only what the launcher has not started goes back; what ran stays.
      const back = rec.action === 'relaunch' ? keys.filter((k) => queue[k]?.id === rec.id) : keys;
      for (const key of back) this.restore(rec.cells[keys.indexOf(key)], before?.get(key), cells);
      if (rec.action === 'relaunch') queue = Object.fromEntries(Object.entries(queue).filter(([, q]) => q.id !== rec.id));
    } else if (rec.action === 'hold') {
      const before = this.holdPriors.get(rec.id);
      for (const c of rec.cells) {
        const cur = cells.peek(cellKey(c.unit, c.step));
        if (!cur || !holdsCell(rec, cur)) continue;
        cells.edit(c.unit, c.step).hold = before?.get(cur.key) ?? null;
      }
    } else {
      skipped = Object.fromEntries(Object.entries(skipped).filter(([, s]) => s.id !== rec.id));
    }
    this.priors.delete(rec.id);
    this.holdPriors.delete(rec.id);
    const actions = this.state.actions.map((a) => (a === rec ? { ...a, undoneAt: e.at } : a));
    this.state = { actions, queue, skipped };
  }

  /** The cell as it was, or — when it was launched since — its old attempts before its new ones. */
  private restore(ref: BulkCellRef, prior: CellLedger | undefined, cells: CellAccess): void {
    const cur = cells.edit(ref.unit, ref.step);
    if (!prior) return;
    if (cur.attempts.length === 0 && cur.runId === null) cells.replace({ ...copyOf(prior), runId: null, state: prior.state === 'running' ? 'idle' : prior.state });
    else cells.replace({ ...cur, attempts: [...prior.attempts, ...cur.attempts] });
  }
}
