import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_TODO_PATTERN, READY_QUERY, findTodoDb, readTodos, reconcileTodos, writeBackTodos } from '../../../src/sources/todos.js';

// The schema of DOMAIN.md section 7 (GitHub Copilot CLI's session database).
const SCHEMA = `
CREATE TABLE todos (id TEXT PRIMARY KEY, title TEXT NOT NULL, description TEXT,
  status TEXT DEFAULT 'pending' CHECK(status IN ('pending','in_progress','done','blocked')),
  created_at TEXT DEFAULT CURRENT_TIMESTAMP, updated_at TEXT DEFAULT CURRENT_TIMESTAMP);
CREATE TABLE todo_deps (todo_id TEXT, depends_on TEXT, PRIMARY KEY(todo_id, depends_on));`;

let root: string;
let db: string;
const opts = { pattern: DEFAULT_TODO_PATTERN };

function create(path: string, todos: [string, string][], deps: [string, string][]): void {
  const d = new Database(path);
  d.exec(SCHEMA);
  const t = d.prepare('INSERT INTO todos (id, title, status) VALUES (?, ?, ?)');
  for (const [id, status] of todos) t.run(id, `Title of ${id}`, status);
  const e = d.prepare('INSERT INTO todo_deps VALUES (?, ?)');
  for (const [a, b] of deps) e.run(a, b);
  d.close();
}

const literalReady = (path: string): string[] => {
  const d = new Database(path, { readonly: true });
  try {
    return (d.prepare(READY_QUERY).all() as { id: string }[]).map((r) => r.id).sort();
  } finally {
    d.close();
  }
};

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'checkroom-todos-'));
  db = join(root, 'todos.db');
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('findTodoDb', () => {
  it('prefers the configured path, else the first existing conventional location', async () => {
    expect(findTodoDb(root, null)).toBeNull();
    await mkdir(join(root, '.copilot'));
    await writeFile(join(root, '.copilot/session.db'), '');
    expect(findTodoDb(root, null)).toBe(join(root, '.copilot/session.db'));
    await writeFile(join(root, 'session.db'), '');
    expect(findTodoDb(root, null)).toBe(join(root, 'session.db'));
    await mkdir(join(root, '.checkroom'));
    await writeFile(join(root, '.checkroom/todos.db'), '');
    expect(findTodoDb(root, null)).toBe(join(root, '.checkroom/todos.db'));
    expect(findTodoDb(root, 'state/mine.db')).toBe(join(root, 'state/mine.db'));
    expect(findTodoDb(root, '/abs/x.db')).toBe('/abs/x.db');
  });
});

describe('readTodos', () => {
  it('computes ready exactly as the source query and maps ids to unit/step', () => {
    create(
      db,
      [
        ['ch01-research', 'done'],
        ['ch01-draft', 'done'],
        ['ch01-r1', 'pending'],
        ['ch01-r2', 'in_progress'],
        ['ch01-review', 'pending'],
        ['ch02-research', 'pending'],
        ['ch02-draft', 'pending'],
        ['ch03-research', 'blocked'],
        ['setup-env', 'pending'],
      ],
      [
        ['ch01-draft', 'ch01-research'],
        ['ch01-r1', 'ch01-draft'],
        ['ch01-r2', 'ch01-draft'],
        ['ch01-review', 'ch01-r1'],
        ['ch01-review', 'ch01-r2'],
        ['ch02-draft', 'ch02-research'],
      ],
    );
    const snap = readTodos(db, opts);
    expect(snap.ok).toBe(true);
    expect(snap.ready).toEqual(['ch01-r1', 'ch02-research', 'setup-env']);
    expect(snap.ready).toEqual(literalReady(db));
    expect(snap.todos.find((t) => t.id === 'ch01-review')).toMatchObject({ unit: 'ch01', step: 'review', deps: ['ch01-r1', 'ch01-r2'], status: 'pending' });
    expect(snap.unmapped).toEqual(['setup-env']);
    expect(snap.danglingDeps).toEqual([]);
    expect(snap.warnings).toEqual([]);
  });

  it('reports a dangling dependency and the todo that is ready only because of it', () => {
    create(db, [['ch09-draft', 'pending'], ['ch09-research', 'done'], ['ch09-r1', 'pending']], [
      ['ch09-draft', 'ch09-outline'],
      ['ch09-draft', 'ch09-research'],
      ['ch09-r1', 'ch09-draft'],
    ]);
    const snap = readTodos(db, opts);
    expect(snap.danglingDeps).toEqual([{ todo_id: 'ch09-draft', depends_on: 'ch09-outline' }]);
    // The source query's JOIN drops the edge, so ch09-draft counts as ready — as the query says.
    expect(snap.ready).toEqual(['ch09-draft']);
    expect(snap.ready).toEqual(literalReady(db));
    expect(snap.readyViaDangling).toEqual(['ch09-draft']);
    expect(snap.warnings.map((w) => w.message).join('\n')).toMatch(/ch09-draft depends on ch09-outline, which does not exist/);
  });

  it('warns (never throws) on a missing table, a missing file and a corrupt file', async () => {
    const other = new Database(db);
    other.exec('CREATE TABLE notes (x)');
    other.close();
    const noTable = readTodos(db, opts);
    expect(noTable).toMatchObject({ ok: false, todos: [] });
    expect(noTable.warnings[0].message).toMatch(/has no todos table/);

    const missing = readTodos(join(root, 'none.db'), opts);
    expect(missing.ok).toBe(false);
    expect(missing.warnings[0].message).toMatch(/cannot open .*none\.db.*check the path/);

    const garbage = join(root, 'garbage.db');
    await writeFile(garbage, Buffer.from(Array.from({ length: 8192 }, (_, i) => (i * 37 + 11) % 256)));
    const corrupt = readTodos(garbage, opts);
    expect(corrupt.ok).toBe(false);
    expect(corrupt.warnings[0].message).toMatch(/is not a readable SQLite database.*markers on disk still decide/);
  });

  it('turns a lock held by another process into a warning after the busy timeout', async () => {
    create(db, [['ch01-research', 'done']], []);
    const holder = await holdExclusive(db);
    try {
      const snap = readTodos(db, { ...opts, busyTimeoutMs: 300 });
      expect(snap.ok).toBe(false);
      expect(snap.warnings[0].message).toMatch(/locked by another process.*read again on the next scan/);
    } finally {
      holder.stdin!.end();
      await new Promise((r) => holder.once('exit', r));
    }
    expect(readTodos(db, opts).ok).toBe(true);
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

describe('reconcileTodos', () => {
  it('lists every way the table and the disk disagree, and nothing else', () => {
    create(db, [['ch03-draft', 'done'], ['ch03-r1', 'in_progress'], ['ch03-r2', 'in_progress'], ['ch03-r3', 'pending'], ['ch03-research', 'done']], []);
    const snap = readTodos(db, opts);
    const cells = [
      { unit: 'ch03', step: 'research', status: 'done' },
      { unit: 'ch03', step: 'draft', status: 'partial' },
      { unit: 'ch03', step: 'r1', status: 'done' },
      { unit: 'ch03', step: 'r2', status: 'not_started' },
      { unit: 'ch03', step: 'r3', status: 'not_started' },
    ];
    const diffs = reconcileTodos(snap, cells);
    expect(diffs.map((d) => [d.todoId, d.todo, d.disk])).toEqual([
      ['ch03-draft', 'done', 'partial'],
      ['ch03-r1', 'in_progress', 'done'],
      ['ch03-r2', 'in_progress', 'not_started'],
    ]);
    expect(diffs[0].note).toMatch(/markers decide/);
    expect(diffs[1].note).toMatch(/write back/);
    expect(diffs[2].note).toMatch(/nothing is on disk/);
    // A file checkroom cannot read contradicts no todo either.
    const unreadable = cells.map((c) => (c.step === 'draft' ? { ...c, status: 'needs_human', disk: 'unreadable' } : c));
    expect(reconcileTodos(snap, unreadable).map((d) => d.todoId)).toEqual(['ch03-r1', 'ch03-r2']);
  });
});

describe('writeBackTodos', () => {
  it('flips proven todos in one transaction in WAL mode while another connection reads', () => {
    create(db, [['ch03-r1', 'in_progress'], ['ch03-r2', 'pending'], ['ch03-r3', 'done']], []);
    const reader = new Database(db);
    reader.pragma('journal_mode = WAL');
    reader.exec('BEGIN');
    const status = reader.prepare('SELECT status FROM todos WHERE id = ?').pluck();
    expect(status.get('ch03-r1')).toBe('in_progress'); // the read snapshot starts here
    const res = writeBackTodos(
      db,
      [
        { id: 'ch03-r1', status: 'done' },
        { id: 'ch03-r3', status: 'done' },
        { id: 'ch03-ghost', status: 'done' },
      ],
      [root],
    );
    expect(res).toEqual({ updated: 1, missing: ['ch03-ghost'] });
    expect(status.get('ch03-r1')).toBe('in_progress'); // WAL: the reader keeps its snapshot
    reader.exec('COMMIT');
    expect(status.get('ch03-r1')).toBe('done');
    expect(status.get('ch03-r2')).toBe('pending');
    expect(reader.pragma('journal_mode', { simple: true })).toBe('wal');
    reader.close();
    expect(readTodos(db, opts).ready).toEqual(['ch03-r2']);
  });

  it('switches a rollback-journal database to WAL and refuses anything but done', () => {
    create(db, [['ch01-draft', 'pending']], []);
    expect(writeBackTodos(db, [{ id: 'ch01-draft', status: 'done' }], [root]).updated).toBe(1);
    const d = new Database(db, { readonly: true });
    expect(d.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(d.prepare(`SELECT updated_at FROM todos WHERE id = 'ch01-draft'`).pluck().get()).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    d.close();
    expect(() => writeBackTodos(db, [{ id: 'ch01-draft', status: 'pending' as 'done' }], [root])).toThrow(/only writes back done/);
  });

  it('says "cannot write" and what to do when the database is read-only (non-root user), and changes nothing', async () => {
    if (process.getuid?.() !== 0) return; // the setup needs root: a root-owned database nobody may only read
    const { chmodSync, chownSync } = await import('node:fs');
    const { pathToFileURL } = await import('node:url');
    const { NOBODY, runAsNobody } = await import('../../helpers/nobody.js');
    const { REPO } = await import('../../helpers/workspace.js');
    create(db, [['ch01-draft', 'pending']], []);
    chmodSync(db, 0o644);
    chmodSync(root, 0o755);
    chownSync(root, NOBODY, NOBODY);
    const mod = pathToFileURL(join(REPO, 'dist/src/sources/todos.js')).href;
    const script = `const m = await import(${JSON.stringify(mod)}); try { m.writeBackTodos(${JSON.stringify(db)}, [{ id: 'ch01-draft', status: 'done' }], [${JSON.stringify(root)}]); console.log('written'); } catch (e) { console.log(e.message); }`;
    const r = runAsNobody([process.execPath, '--input-type=module', '-e', script]);
    if (!r) return; // no runuser here
    expect(r.stdout).toMatch(/^write-back failed, nothing was changed: cannot write .*todos\.db: it is read-only for checkroom/);
    expect(r.stdout).not.toMatch(/cannot read/);
    expect(literalReady(db)).toEqual(['ch01-draft']);
  });
});
