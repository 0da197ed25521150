import { existsSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import type Database from 'better-sqlite3';
import { openDatabase } from './sqlite.js';
import { sanitizeLine } from '../text/sanitize.js';
import type { Warning } from '../types.js';
import { explainDbError } from './todos-errors.js';
import { PatternError, compilePattern, type SafePattern } from '../pipeline/safe-pattern.js';

// Level 2 recovery source: the SQL todo table (docs/domain.md, Three sources of progress; its schema in Workflow gate files —
// GitHub Copilot CLI's session database). It is read-only evidence of *progress*: it can be
// stale, and the markers on disk decide what is done (reconcileTodos). Reading it must never
// throw: a missing table, a locked or a corrupt database becomes a warning in the snapshot.

export type TodoStatus = 'pending' | 'in_progress' | 'done' | 'blocked';

export interface Todo {
  id: string;
  title: string;
  /** As stored; a value outside TodoStatus (a database without the CHECK) is kept and warned about. */
  status: TodoStatus | (string & {});
  unit: string | null;
  step: string | null;
  deps: string[];
}

export interface TodoEdge {
  todo_id: string;
  depends_on: string;
}

export interface TodoSnapshot {
  path: string;
  /** False when the database could not be read at all (see warnings). */
  ok: boolean;
  todos: Todo[];
  /** Ids returned by READY_QUERY, verbatim semantics (sorted by id for display). */
  ready: string[];
  /** Edges whose `depends_on` names no todo (foreign keys are not enforced). */
  danglingDeps: TodoEdge[];
  /** Ready ids that are ready only because the query's JOIN drops a dangling edge. */
  readyViaDangling: string[];
  /** Ids that do not match the unit/step pattern. */
  unmapped: string[];
  warnings: Warning[];
}

/** The source document's "tasks that can start" query (docs/domain.md, Three sources of progress), character for character. */
export const READY_QUERY = `SELECT t.* FROM todos t
WHERE t.status = 'pending'
AND NOT EXISTS (
    SELECT 1 FROM todo_deps td
    JOIN todos dep ON td.depends_on = dep.id
    WHERE td.todo_id = t.id AND dep.status != 'done'
);`;

/** Kebab-case ids of the book pipeline (`ch03-draft`, `ch03-r1`). */
export const DEFAULT_TODO_PATTERN = '^(?<unit>ch\\d{2,3})-(?<step>[a-z0-9]+)$';

/**
 * Where the todo database lives, by documented convention: the configured path (relative to
 * the workspace, returned even if missing so the reader can say so), else the first that
 * exists of `todos.db`, `.checkroom/todos.db`, `session.db`, `.copilot/session.db`.
 */
export const TODO_DB_CANDIDATES = ['todos.db', '.checkroom/todos.db', 'session.db', '.copilot/session.db'] as const;

export function findTodoDb(root: string, configured: string | null): string | null {
  if (configured) return isAbsolute(configured) ? configured : join(root, configured);
  for (const rel of TODO_DB_CANDIDATES) {
    const abs = join(root, rel);
    if (existsSync(abs)) return abs;
  }
  return null;
}

const KNOWN = new Set(['pending', 'in_progress', 'done', 'blocked']);

export interface ReadTodosOptions {
  /** Regex source with named groups `unit` and `step`. */
  pattern: string;
  /** Busy timeout while another connection holds a lock; default 2000 ms. */
  busyTimeoutMs?: number;
}

const empty = (path: string, warnings: Warning[]): TodoSnapshot => ({
  path,
  ok: false,
  todos: [],
  ready: [],
  danglingDeps: [],
  readyViaDangling: [],
  unmapped: [],
  warnings,
});

export function readTodos(path: string, opts: ReadTodosOptions): TodoSnapshot {
  const warnings: Warning[] = [];
  let re: SafePattern | null = null;
  try {
    // Todo ids are workspace text, the pattern config: RE2, linear in the id.
    re = compilePattern(opts.pattern);
  } catch (err) {
    if (!(err instanceof PatternError)) throw err;
    warnings.push({ source: path, message: `todo id pattern ${sanitizeLine(opts.pattern)} is not a valid pattern (${err.reason}); no todo is mapped to a cell` });
  }
  let db: Database.Database | null = null;
  try {
    db = openDatabase(path, { readonly: true, fileMustExist: true, timeout: opts.busyTimeoutMs ?? 2000 });
    const tables = new Set((db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as { name: string }[]).map((r) => r.name));
    if (!tables.has('todos')) {
      warnings.push({ source: path, message: `${path} has no todos table; it is not a todo database — point sources.todos at the right file or remove it` });
      return empty(path, warnings);
    }
    const rows = db.prepare('SELECT id, title, status FROM todos ORDER BY id').all() as { id: string; title: string; status: string }[];
    let edges: TodoEdge[] = [];
    let ready: string[];
    if (tables.has('todo_deps')) {
      edges = db.prepare('SELECT todo_id, depends_on FROM todo_deps ORDER BY todo_id, depends_on').all() as TodoEdge[];
      ready = (db.prepare(READY_QUERY).all() as { id: string }[]).map((r) => r.id).sort();
    } else {
      // Without the table the source query cannot run; no edges means every pending todo is ready.
      warnings.push({ source: path, message: `${path} has no todo_deps table; dependencies are unknown, so every pending todo counts as ready` });
      ready = rows.filter((r) => r.status === 'pending').map((r) => r.id);
    }
    return build(path, rows, edges, ready, re, warnings);
  } catch (err) {
    warnings.push({ source: path, message: explainDbError(path, err) });
    return empty(path, warnings);
  } finally {
    db?.close();
  }
}

function build(
  path: string,
  rows: { id: string; title: string; status: string }[],
  edges: TodoEdge[],
  ready: string[],
  re: SafePattern | null,
  warnings: Warning[],
): TodoSnapshot {
  const ids = new Set(rows.map((r) => r.id));
  const deps = new Map<string, string[]>();
  for (const e of edges) deps.set(e.todo_id, [...(deps.get(e.todo_id) ?? []), e.depends_on]);
  // docs/domain.md, Workflow gate files: foreign keys are not enforced, so say so rather than guess.
  const danglingDeps = edges.filter((e) => !ids.has(e.depends_on));
  for (const e of danglingDeps) {
    warnings.push({ source: path, message: `todo ${sanitizeLine(e.todo_id)} depends on ${sanitizeLine(e.depends_on)}, which does not exist; the ready query ignores such an edge` });
  }
  const readySet = new Set(ready);
  const readyViaDangling = [...new Set(danglingDeps.filter((e) => readySet.has(e.todo_id)).map((e) => e.todo_id))].sort();
  const unmapped: string[] = [];
  const todos: Todo[] = rows.map((r) => {
    if (!KNOWN.has(r.status)) warnings.push({ source: path, message: `todo ${sanitizeLine(r.id)} has unknown status ${sanitizeLine(JSON.stringify(r.status))}; treated as not done` });
    const g = re?.exec(r.id)?.named;
    const unit = g?.unit ?? null;
    const step = g?.step ?? null;
    if (!unit || !step) unmapped.push(r.id);
    // Titles are agent-written text shown in the terminal (README: security).
    return { id: r.id, title: sanitizeLine(r.title ?? ''), status: r.status, unit, step, deps: deps.get(r.id) ?? [] };
  });
  return { path, ok: true, todos, ready, danglingDeps, readyViaDangling, unmapped, warnings };
}

export { reconcileTodos } from './todos-reconcile.js';
export type { TodoCell, TodoDisagreement } from './todos-reconcile.js';
export { explainDbError } from './todos-errors.js';
export { TodoWriteError, writeBackTodos } from './todos-write.js';
export type { TodoUpdate, WriteBackResult } from './todos-write.js';
