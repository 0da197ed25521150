import type { TodoSnapshot } from './todos.js';

// DOMAIN.md section 3: the todo table is evidence of progress, the markers are the truth of
// done. This lists where they disagree so the control room can show it (and, for cells the
// disk proves done, offer a write-back). It never changes a cell's status.

export interface TodoCell {
  unit: string;
  step: string;
  /** The cell's reconciled or disk status (CellStatus or DiskState words). */
  status: string;
  /** `unreadable`: the disk cannot say, so it contradicts nothing. */
  disk?: string;
}

export interface TodoDisagreement {
  unit: string;
  step: string;
  todoId: string;
  /** Status in the todo table. */
  todo: string;
  /** Status of the cell on disk. */
  disk: string;
  note: string;
}

/** Statuses that mean "nothing has been written for this cell". */
const NOTHING = new Set(['not_started', 'missing']);

export function reconcileTodos(snapshot: TodoSnapshot, cells: TodoCell[]): TodoDisagreement[] {
  const byCell = new Map(cells.map((c) => [`${c.unit}/${c.step}`, c]));
  const out: TodoDisagreement[] = [];
  for (const t of snapshot.todos) {
    if (!t.unit || !t.step) continue;
    const cell = byCell.get(`${t.unit}/${t.step}`);
    if (!cell || cell.disk === 'unreadable') continue;
    const base = { unit: t.unit, step: t.step, todoId: t.id, todo: t.status, disk: cell.status };
    if (t.status === 'done' && cell.status !== 'done') {
      out.push({ ...base, note: `the todo table says done but the disk has no marker (${cell.status}); the markers decide: the step is not done` });
    } else if (cell.status === 'done' && t.status !== 'done') {
      out.push({ ...base, note: `the marker proves done but the todo table says ${t.status}; the table is stale — write back to fix it` });
    } else if (t.status === 'in_progress' && NOTHING.has(cell.status)) {
      out.push({ ...base, note: 'the todo table says in progress but nothing is on disk; the session probably died before writing — run it again' });
    }
  }
  return out;
}
