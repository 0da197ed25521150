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

export type TriageJournalEvent = RedoQueuedEvent | SkipEvent | UndoPushedEvent | UndoPoppedEvent;
