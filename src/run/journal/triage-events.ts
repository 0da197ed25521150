/** `at`: epoch milliseconds, as every journal event. */
interface Base {
  v: 1;
  at: number;
}

// The operator's redo queue, skipped list and undo stack, kept in the journal so a restart
// loses none of them (folded by ledger-fold.ts through triage-ledger.ts). A queued redo
// leaves the queue when its cell is launched or its backup is undone.

export interface RedoQueuedEvent extends Base {
  type: 'redo_queued';
  unit: string;
  step: string;
  /** Workspace-relative: the half-product moved aside, and where it went. */
  path: string;
  backup: string;
}

export interface SkipEvent extends Base {
  type: 'skip';
  /** Workspace-relative path hidden from the Partials view (`on: false` shows it again). */
  path: string;
  on: boolean;
}

export interface UndoPushedEvent extends Base {
  type: 'undo_pushed';
  /** Names the group for its undo_popped. */
  id: string;
  label: string;
  moves: { path: string; backup: string }[];
}

export interface UndoPoppedEvent extends Base {
  type: 'undo_popped';
  id: string;
}

/**
 * Redo from here (docs/redo.md): ONE record for the whole action, so undo and a restart see
 * it whole. The cells in queue order with the claim checkpoint.md held, the backups made
 * (`copy`: a shared file, which stayed), and the changed agent or prompt for the cells' next
 * attempt.
 */
export interface RedoAppliedEvent extends Base {
  type: 'redo_applied';
  id: string;
  /** The cell the operator redid from. */
  unit: string;
  step: string;
  cells: { unit: string; step: string; path: string; claim: string | null }[];
  moves: { path: string; backup: string; copy: boolean }[];
  agent?: string;
  prompt?: string;
}

/** The undo of a redo: every backup restored (`current`: where the file it replaced went), its cells unqueued. */
export interface RedoUndoneEvent extends Base {
  type: 'redo_undone';
  id: string;
  /** `backup` is the one restored from. */
  moves: { path: string; backup: string; current: string | null }[];
}

export type TriageJournalEvent = RedoQueuedEvent | SkipEvent | UndoPushedEvent | UndoPoppedEvent | RedoAppliedEvent | RedoUndoneEvent;
