import type { JournalEvent } from './journal.js';

// The operator's triage state as a fold over the journal: the redo queue,
// the skipped list and the undo stack. Pure: a step returns the state it was given when the
// event changes nothing, and a new object (never a changed one) when it does, so ledgers
// handed out earlier stay as they were (ledger-fold.ts).

export interface QueuedRedo {
  unit: string;
  step: string;
  path: string;
  backup: string;
  /** Epoch ms of the redo_queued event. */
  queuedAt: number;
}

export interface UndoRecord {
  id: string;
  label: string;
  moves: { path: string; backup: string }[];
}

export interface TriageLedger {
  redoQueue: QueuedRedo[];
  skipped: string[];
  /** Oldest first; `u` undoes the last. */
  undo: UndoRecord[];
}

/** Undo groups kept: enough for any session's backups; a journal of years stays bounded. */
export const MAX_UNDO = 100;

export const emptyTriage = (): TriageLedger => ({ redoQueue: [], skipped: [], undo: [] });

const sameCell = (a: { unit: string; step: string }, b: { unit: string; step: string }): boolean => a.unit === b.unit && a.step === b.step;

export function triageStep(t: TriageLedger, e: JournalEvent): TriageLedger {
  switch (e.type) {
    case 'redo_queued':
      return { ...t, redoQueue: [...t.redoQueue.filter((q) => !sameCell(q, e)), { unit: e.unit, step: e.step, path: e.path, backup: e.backup, queuedAt: e.at }] };
    case 'launch':
      // Launched (by the operator or autopilot): no longer waiting in the queue.
      return t.redoQueue.some((q) => sameCell(q, e)) ? { ...t, redoQueue: t.redoQueue.filter((q) => !sameCell(q, e)) } : t;
    case 'skip':
      if (e.on === t.skipped.includes(e.path)) return t;
      return { ...t, skipped: e.on ? [...t.skipped, e.path] : t.skipped.filter((p) => p !== e.path) };
    case 'undo_pushed':
      return { ...t, undo: [...t.undo.filter((g) => g.id !== e.id), { id: e.id, label: e.label, moves: e.moves.map((m) => ({ path: m.path, backup: m.backup })) }].slice(-MAX_UNDO) };
    case 'undo_popped': {
      const group = t.undo.find((g) => g.id === e.id);
      if (!group) return t;
      // Its files are back under their names: a redo queued for them is void.
      const restored = new Set(group.moves.map((m) => m.path));
      return { ...t, undo: t.undo.filter((g) => g !== group), redoQueue: t.redoQueue.filter((q) => !restored.has(q.path)) };
    }
    default:
      return t;
  }
}
