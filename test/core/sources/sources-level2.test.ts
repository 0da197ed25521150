import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { loadWorkspace } from '../../../src/workspace.js';
import { loadConfig } from '../../../src/pipeline/config/config.js';
import { withLevel2, writeBackProven, provenTodoIds } from '../../../src/sources/level2.js';
import { PHASE_1_2, doneFile, summaries, tempDir, writeFiles } from '../../helpers/workspace.js';

// Level 2 in the state (DOMAIN.md section 3): the todo table read with the source document's
// ready query and compared with the reconciled cells, on real SQLite files.

const SCHEMA = `
CREATE TABLE todos (id TEXT PRIMARY KEY, title TEXT NOT NULL, description TEXT,
  status TEXT DEFAULT 'pending' CHECK(status IN ('pending','in_progress','done','blocked')),
  created_at TEXT DEFAULT CURRENT_TIMESTAMP, updated_at TEXT DEFAULT CURRENT_TIMESTAMP);
CREATE TABLE todo_deps (todo_id TEXT, depends_on TEXT, PRIMARY KEY(todo_id, depends_on));`;

function createDb(path: string, todos: [string, string][], deps: [string, string][]): void {
  const d = new Database(path);
  d.exec(SCHEMA);
  const t = d.prepare('INSERT INTO todos (id, title, status) VALUES (?, ?, ?)');
  for (const [id, status] of todos) t.run(id, `Title of ${id}`, status);
  const e = d.prepare('INSERT INTO todo_deps VALUES (?, ?)');
  for (const [a, b] of deps) e.run(a, b);
  d.close();
}

/** ch01 research and draft done on disk; ch02 research done. */
function workspace(): string {
  const root = tempDir('checkroom-level2-');
  writeFiles(root, {
    ...PHASE_1_2,
    'meta/chapter-summaries.md': summaries([]),
    ...Object.fromEntries([doneFile('ch01', 'research'), doneFile('ch01', 'draft'), doneFile('ch02', 'research')]),
  });
  return root;
}

const statusOf = (path: string, id: string): string => {
  const d = new Database(path, { readonly: true });
  try {
    return (d.prepare('SELECT status FROM todos WHERE id = ?').get(id) as { status: string }).status;
  } finally {
    d.close();
  }
};

describe('withLevel2', () => {
  it('surfaces the ready todos of the source query and where the table disagrees with the disk', async () => {
    const root = workspace();
    createDb(
      join(root, 'todos.db'),
      [
        ['ch01-research', 'done'],
        ['ch01-draft', 'in_progress'], // stale: the marker proves it done
        ['ch01-r1', 'pending'], // waits on ch01-draft, which the table still thinks is running
        ['ch02-research', 'done'],
        ['ch02-draft', 'pending'], // ready: its only dependency is done
        ['ch03-research', 'done'], // the table lies: nothing on disk
        ['ch04-research', 'pending'], // ready: no dependencies
      ],
      [
        ['ch01-r1', 'ch01-draft'],
        ['ch02-draft', 'ch02-research'],
        ['ch04-research', 'ch04-outline'], // dangling: no such todo
      ],
    );
    const config = await loadConfig(root);
    const before = await loadWorkspace(root);
    // The everyday state carries level 2 already; withLevel2 recomputes it the same way.
    expect(before.todos!.ready).toEqual(['ch02-draft', 'ch04-research']);
    const s = withLevel2({ ...before, todos: undefined }, root, config);
    expect(s.todos).not.toBeNull();
    expect(s.todos!.path).toBe(join(root, 'todos.db'));
    expect(s.todos!.ready).toEqual(['ch02-draft', 'ch04-research']);
    expect(s.todos!.dangling).toEqual([{ todo_id: 'ch04-research', depends_on: 'ch04-outline' }]);
    expect(s.todos!.disagreements.map((d) => `${d.todoId} ${d.todo}→${d.disk}`)).toEqual(['ch01-draft in_progress→done', 'ch03-research done→not_started']);
    expect(provenTodoIds(s.todos)).toEqual(['ch01-draft']);
    // The cells are untouched: the table is evidence of progress, the markers decide.
    expect(s.cells.find((c) => c.unit === 'ch01' && c.step === 'draft')!.status).toBe('done');
    expect(s.cells).toBe(before.cells);
  });

  it('is null when the workspace has no todo database', async () => {
    const root = workspace();
    const s = withLevel2(await loadWorkspace(root), root, await loadConfig(root));
    expect(s.todos).toBeNull();
  });

  it('turns a locked database into a warning in the state, not a crash', async () => {
    const root = workspace();
    const db = join(root, 'todos.db');
    createDb(db, [['ch01-research', 'done']], []);
    const holder = await holdExclusive(db);
    try {
      const s = withLevel2(await loadWorkspace(root), root, await loadConfig(root), { busyTimeoutMs: 200 });
      expect(s.todos).toMatchObject({ ok: false, ready: [], disagreements: [] });
      expect(s.todos!.warnings[0].message).toMatch(/locked by another process/);
    } finally {
      holder.stdin!.end();
      await new Promise((r) => holder.once('exit', r));
    }
  });

  it('writes back only the todos whose marker is proven, and reads the table again first', async () => {
    const root = workspace();
    const db = join(root, 'todos.db');
    createDb(db, [['ch01-draft', 'in_progress'], ['ch03-research', 'done'], ['ch02-draft', 'pending']], []);
    const config = await loadConfig(root);
    const state = withLevel2(await loadWorkspace(root), root, config);
    const r = writeBackProven(root, config, state);
    expect(r).toMatchObject({ ids: ['ch01-draft'], updated: 1, missing: [] });
    expect(statusOf(db, 'ch01-draft')).toBe('done');
    // Never the other way: a todo the disk does not prove stays as it was.
    expect(statusOf(db, 'ch03-research')).toBe('done');
    expect(statusOf(db, 'ch02-draft')).toBe('pending');
    const again = withLevel2(await loadWorkspace(root), root, config);
    expect(again.todos!.disagreements.map((d) => d.todoId)).toEqual(['ch03-research']);
    expect(writeBackProven(root, config, again)).toMatchObject({ ids: [], updated: 0 });
  });
});

/** A child process that holds `BEGIN EXCLUSIVE` on a rollback-journal database until its stdin closes. */
function holdExclusive(path: string): Promise<ChildProcess> {
  const script = `const D = require('better-sqlite3'); const d = new D(process.argv[1]);
d.exec('BEGIN EXCLUSIVE'); process.stdout.write('locked\\n');
process.stdin.resume(); process.stdin.on('end', () => { d.exec('ROLLBACK'); d.close(); process.exit(0); });`;
  const child = spawn(process.execPath, ['-e', script, path], { cwd: process.cwd(), stdio: ['pipe', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.stdout!.once('data', () => resolve(child));
    child.once('exit', (code) => reject(new Error(`lock holder exited early (${code})`)));
  });
}
