import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { loadWorkspace } from '../../../src/workspace.js';
import { sourceItems } from '../../../src/ui/store/select.js';
import { DEMO, doneFile, PHASE_1_2, summaries, tempDir, writeFiles } from '../../helpers/workspace.js';

// Issue 8 item 6: the todo table's "ready" list (the source document's query) was shown as
// it is. It trusts the table's `done`; the markers decide, so each ready todo is checked.

const SCHEMA = `
CREATE TABLE todos (id TEXT PRIMARY KEY, title TEXT NOT NULL, description TEXT,
  status TEXT DEFAULT 'pending' CHECK(status IN ('pending','in_progress','done','blocked')),
  created_at TEXT DEFAULT CURRENT_TIMESTAMP, updated_at TEXT DEFAULT CURRENT_TIMESTAMP);
CREATE TABLE todo_deps (todo_id TEXT, depends_on TEXT, PRIMARY KEY(todo_id, depends_on));`;

function create(path: string, todos: [string, string][], deps: [string, string][]): void {
  const d = new Database(path);
  d.exec(SCHEMA);
  const t = d.prepare('INSERT INTO todos (id, title, status) VALUES (?, ?, ?)');
  for (const [id, status] of todos) t.run(id, `Title of ${id}`, status);
  const e = d.prepare('INSERT INTO todo_deps VALUES (?, ?)');
  for (const [a, b] of deps) e.run(a, b);
  d.close();
}

describe('ready todos against the disk', () => {
  it('names a ready todo whose dependency has no marker, and one whose own marker is on disk', async () => {
    const root = tempDir();
    writeFiles(root, {
      ...PHASE_1_2,
      'meta/chapter-summaries.md': summaries([]),
      ...Object.fromEntries([doneFile('ch02', 'research'), doneFile('ch03', 'research')]),
      'drafts/ch03-draft.md': '# Draft\n\nonly a start',
    });
    create(
      join(root, 'todos.db'),
      [['ch01-research', 'done'], ['ch01-draft', 'pending'], ['ch02-research', 'pending'], ['ch03-research', 'done'], ['ch03-draft', 'pending'], ['ch04-research', 'pending']],
      [['ch01-draft', 'ch01-research'], ['ch03-draft', 'ch03-research']],
    );
    const s = await loadWorkspace(root);
    expect(s.todos!.ready).toEqual(['ch01-draft', 'ch02-research', 'ch03-draft', 'ch04-research']);
    expect(s.todos!.readyContradicted.map((x) => [x.todoId, x.note])).toEqual([
      ['ch01-draft', 'ready only because the table says ch01-research (not started) is done; the disk has no marker, so it is not ready'],
      ['ch02-research', 'ready in the table, but its marker is on disk: it is done (write back to fix the table)'],
      ['ch03-draft', 'ready in the table, but a half-product is on disk: triage it before running the step again'],
    ]);
  });
});

describe('the Sources view', () => {
  it('lists each ready todo the disk contradicts as a row of its own', async () => {
    const s = await loadWorkspace(DEMO);
    const rows = sourceItems(s, '').filter((x) => x.kind === 'ready');
    expect(rows.map((x) => (x.kind === 'ready' ? x.r.todoId : ''))).toEqual(['ch07-research', 'ch09-research']);
  });
});
