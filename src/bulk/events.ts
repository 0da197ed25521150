// A set action on many cells is one journal record, and its undo another (docs/redrive.md):
// the ledger folds both (bulk/fold.ts), so a restart, even after kill -9, knows what a named
// action did and what undoing it gives back.

export type BulkAction = 'relaunch' | 'reset' | 'skip' | 'hold';

export const BULK_ACTIONS: readonly BulkAction[] = ['relaunch', 'reset', 'skip', 'hold'];

export interface BulkCellRef {
  unit: string;
  step: string;
}

/** One named action on a set of cells: `at` epoch ms, as every journal event. */
export interface BulkActionEvent {
  v: 1;
  at: number;
  type: 'bulk_action';
  /** Names the record for its undo. */
  id: string;
  /** The operator's name for it (the incident): `rate-limit-0200`. */
  name: string;
  action: BulkAction;
  /** The filter as typed, or where the set came from (`marked`). */
  filter: string;
  cells: BulkCellRef[];
}

/** Undo of one named action, the whole of it, as one record. */
export interface BulkUndoEvent {
  v: 1;
  at: number;
  type: 'bulk_undo';
  id: string;
  /** The action's name, for History to say what was undone. */
  name: string;
}

export type BulkJournalEvent = BulkActionEvent | BulkUndoEvent;

/** The journal's check of a `cells` field: every entry a unit and a step. */
export const isCellList = (v: unknown): boolean =>
  Array.isArray(v) && v.every((x) => typeof x === 'object' && x !== null && typeof (x as BulkCellRef).unit === 'string' && typeof (x as BulkCellRef).step === 'string');

// ── The ledger's view of them (bulk/fold.ts folds it; the ledger's type holds it) ──

export interface BulkRecord {
  id: string;
  name: string;
  action: BulkAction;
  filter: string;
  at: number;
  cells: readonly BulkCellRef[];
  /** When it was undone, or null. */
  undoneAt: number | null;
  /** Relaunch: cells the launcher started since (undo leaves what ran). */
  launched: readonly string[];
}

export interface BulkLedger {
  /** Oldest first, the last MAX_BULK kept. */
  actions: readonly BulkRecord[];
  /** Relaunched cells not launched yet, by key → the action that queued them. */
  queue: Readonly<Record<string, { id: string; name: string }>>;
  /** Skipped cells by key: autopilot and `run --next` leave them alone until unskipped. */
  skipped: Readonly<Record<string, { id: string; name: string; at: number }>>;
}

/** Named actions kept: a journal of years stays bounded. */
export const MAX_BULK = 100;

export const emptyBulk = (): BulkLedger => ({ actions: [], queue: {}, skipped: {} });

