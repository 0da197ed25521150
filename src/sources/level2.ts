import type { WorkspaceConfig } from '../pipeline/config/types.js';
import type { TodoView, WorkspaceState } from '../types.js';
import { findTodoDb, readTodos, reconcileTodos, writeBackTodos, type TodoSnapshot, type WriteBackResult } from './todos.js';
import { readyAgainstDisk } from './todos-reconcile.js';

// Level 2 in the state (docs/domain.md, Three sources of progress): the SQL todo table, read with the source
// document's ready query and compared with the reconciled cells. The table is evidence of
// progress only; it never changes a cell's status. Reading never throws: a locked, missing
// or corrupt database is a warning inside the view.

/** The todo view for a workspace, or null when no todo database is configured or found by convention. */
export interface Level2Options {
  /** How long to wait for another connection's lock before giving up with a warning; default 2000 ms. */
  busyTimeoutMs?: number;
}

/** Read the workspace's todo table once (the expensive part); null when there is none. */
export function readLevel2(root: string, config: WorkspaceConfig, opts: Level2Options = {}): TodoSnapshot | null {
  const path = findTodoDb(root, config.sources.todos);
  return path ? readTodos(path, { pattern: config.sources.todoPattern, busyTimeoutMs: opts.busyTimeoutMs }) : null;
}

export function todoViewOf(root: string, config: WorkspaceConfig, cells: WorkspaceState['cells'], opts: Level2Options = {}): TodoView | null {
  const snap = readLevel2(root, config, opts);
  return snap ? todoViewFrom(snap, config, cells) : null;
}

/** The view of an already-read snapshot against the current cells: O(cells + todos), no I/O. */
export function todoViewFrom(snap: TodoSnapshot, config: WorkspaceConfig, cells: WorkspaceState['cells']): TodoView {
  const path = snap.path;
  // A todo can name a chapter the disk has never seen: that is "nothing on disk", not "unknown".
  const units = new Set<string>();
  for (const c of cells) units.add(c.unit);
  const steps = new Set(config.pipeline.steps.map((st) => st.id));
  const extra = snap.todos.filter((t) => t.unit && t.step && !units.has(t.unit) && steps.has(t.step)).map((t) => ({ unit: t.unit!, step: t.step!, status: 'not_started' }));
  // reconcileTodos builds one Map over the cells: O(cells + todos).
  const all = extra.length ? [...cells, ...extra] : cells;
  const disagreements = snap.ok ? reconcileTodos(snap, all) : [];
  const readyContradicted = snap.ok ? readyAgainstDisk(snap, all) : [];
  return { path, ok: snap.ok, ready: snap.ready, readyContradicted, disagreements, dangling: snap.danglingDeps, warnings: snap.warnings };
}

/** A new state with `todos` filled from the workspace's todo database (null when there is none). */
export function withLevel2(state: WorkspaceState, root: string, config: WorkspaceConfig, opts: Level2Options = {}): WorkspaceState {
  return { ...state, todos: todoViewOf(root, config, state.cells, opts) };
}

/** Todo ids whose cell the disk proves done while the table says otherwise. */
export function provenTodoIds(view: TodoView | null | undefined): string[] {
  return (view?.disagreements ?? []).filter((d) => d.disk === 'done' && d.todo !== 'done').map((d) => d.todoId);
}

/**
 * Flip to `done` every todo whose marker is proven on disk (WAL, busy timeout, one
 * transaction: see todos-write.ts). Reads the table again first, so a view computed before
 * another session wrote is not trusted. Null when there is no readable todo database.
 * Throws TodoWriteError when the write fails (nothing is changed then).
 */
export function writeBackProven(root: string, config: WorkspaceConfig, state: WorkspaceState): (WriteBackResult & { path: string; ids: string[] }) | null {
  const view = todoViewOf(root, config, state.cells);
  if (!view || !view.ok) return null;
  const ids = provenTodoIds(view);
  if (ids.length === 0) return { path: view.path, ids, updated: 0, missing: [] };
  const res = writeBackTodos(
    view.path,
    ids.map((id) => ({ id, status: 'done' as const })),
    [root],
  );
  return { path: view.path, ids, ...res };
}
