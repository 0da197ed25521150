import type Database from 'better-sqlite3';
import { openDatabase } from './sqlite.js';
import { explainDbError } from './todos-errors.js';
import { assertInside, ConfineError } from '../fs/confine-path.js';

// Write-back of proven progress into the todo table (docs/domain.md, Three sources of progress). Only `done`, and
// only for todos whose marker the caller has proven on disk — the table never leads. WAL
// mode lets the agent's session keep reading while we write; one IMMEDIATE transaction takes
// the write lock up front, so we either update everything or nothing.

export interface TodoUpdate {
  id: string;
  status: 'done';
}

export interface WriteBackResult {
  updated: number;
  /** Requested ids with no row in the table. */
  missing: string[];
}

export class TodoWriteError extends Error {
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
    this.name = 'TodoWriteError';
  }
}

/** `roots`: where the database may be (the workspace); a todos.db linked out of it is not written. */
export function writeBackTodos(path: string, updates: TodoUpdate[], roots: readonly string[]): WriteBackResult {
  for (const u of updates) {
    if (u.status !== 'done') throw new TodoWriteError(`refusing to write status ${String(u.status)} for ${u.id}: checkroom only writes back done, proven by a marker`);
  }
  let db: Database.Database | null = null;
  try {
    db = openDatabase(assertInside('write', path, roots), { fileMustExist: true });
    db.pragma('busy_timeout = 5000');
    if (String(db.pragma('journal_mode', { simple: true })).toLowerCase() !== 'wal') db.pragma('journal_mode = WAL');
    const exists = db.prepare('SELECT 1 FROM todos WHERE id = ?');
    // Same timestamp format as SQLite's CURRENT_TIMESTAMP, which such tables use as default.
    const flip = db.prepare(`UPDATE todos SET status = 'done', updated_at = strftime('%Y-%m-%d %H:%M:%S', 'now') WHERE id = ? AND status != 'done'`);
    const run = db.transaction((list: TodoUpdate[]) => {
      let updated = 0;
      const missing: string[] = [];
      for (const u of list) {
        if (!exists.get(u.id)) missing.push(u.id);
        else updated += flip.run(u.id).changes;
      }
      return { updated, missing };
    });
    return run.immediate(updates);
  } catch (err) {
    if (err instanceof TodoWriteError) throw err;
    if (err instanceof ConfineError) throw new TodoWriteError(`write-back refused, nothing was changed: ${err.message}`, err.code);
    const code = (err as { code?: string }).code;
    throw new TodoWriteError(`write-back failed, nothing was changed: ${explainDbError(path, err, 'write')}`, code);
  } finally {
    db?.close();
  }
}
