import type { TriageLedger } from '../../run/journal/triage-ledger.js';
import type { UiState } from '../store/types.js';

// The control room starts with the redo queue, the skipped list and the undo
// stack the journal holds, so quitting (or losing the terminal) and starting again loses none.

export function fromLedger(t: TriageLedger | undefined): Pick<UiState, 'redoQueue' | 'skipped' | 'undo'> {
  if (!t) return { redoQueue: [], skipped: [], undo: [] };
  return {
    redoQueue: t.redoQueue.map((q) => ({ ...q })),
    skipped: [...t.skipped],
    undo: t.undo.map((g) => ({ id: g.id, label: g.label, moves: g.moves.map((m) => ({ ...m })), ...(g.redo ? { redo: { cells: g.redo.cells.map((c) => ({ ...c })), ...(g.redo.from ? { from: { ...g.redo.from } } : {}) } } : {}) })),
  };
}
