import type { TodoSnapshot } from './todos.js';

// docs/domain.md, Three sources of progress: the todo table is evidence of progress, the markers are the truth of
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

/** A todo the ready query lists that the disk says is not ready to start. */
export interface ReadyContradiction {
  todoId: string;
  unit: string | null;
  step: string | null;
  note: string;
}

/**
 * The ready list checked against the disk. The query trusts the table's
 * `done` for every dependency and its `pending` for the todo itself; the markers decide:
 * a dependency the disk does not prove done, or a todo whose own cell is already done,
 * running or half-written, is not simply ready.
 */
export function readyAgainstDisk(snapshot: TodoSnapshot, cells: TodoCell[]): ReadyContradiction[] {
  const byCell = new Map(cells.map((c) => [`${c.unit}/${c.step}`, c]));
  const byId = new Map(snapshot.todos.map((t) => [t.id, t]));
  const cellOf = (id: string): TodoCell | undefined => {
    const t = byId.get(id);
    const c = t?.unit && t.step ? byCell.get(`${t.unit}/${t.step}`) : undefined;
    return c && c.disk !== 'unreadable' ? c : undefined;
  };
  const out: ReadyContradiction[] = [];
  for (const id of snapshot.ready) {
    const t = byId.get(id);
    const at = { todoId: id, unit: t?.unit ?? null, step: t?.step ?? null };
    const unproven = (t?.deps ?? []).filter((d) => byId.get(d)?.status === 'done' && cellOf(d) && cellOf(d)!.status !== 'done');
    const own = cellOf(id)?.status;
    if (unproven.length) {
      const what = unproven.map((d) => `${d} (${cellOf(d)!.status.replace('_', ' ')})`).join(', ');
      out.push({ ...at, note: `ready only because the table says ${what} ${unproven.length === 1 ? 'is' : 'are'} done; the disk has no marker, so it is not ready` });
    } else if (own === 'done') out.push({ ...at, note: 'ready in the table, but its marker is on disk: it is done (write back to fix the table)' });
    else if (own === 'running') out.push({ ...at, note: 'ready in the table, but an agent is writing it now' });
    else if (own === 'partial') out.push({ ...at, note: 'ready in the table, but a half-product is on disk: triage it before running the step again' });
  }
  return out;
}
