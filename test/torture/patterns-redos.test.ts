import { afterAll, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { hasTmux, tmuxRooms, CLI } from '../helpers/tmux.js';
import { CATASTROPHIC_ID, catastrophicWorkspace } from './evil-workspace.js';

// Issue 16 item 3: `units: { pattern: "ch(\\d+)+x?" }` and one file named `ch` + 36 digits +
// `!-research.md` kept `checkroom status` at 100% CPU until killed, and a control room on that
// workspace ignored SIGTERM (the match held the event loop, so no handler ran). The same with
// sources.todo_pattern and a todo id. Real bin, real processes. The 15 s bound is not a
// timing threshold: linear matching answers in well under a second, the backtracking one
// ran for hours, and spawnSync's timeout kills it so the test fails instead of hanging.

const BOUND_MS = 15_000;

const status = (root: string) => spawnSync('node', [CLI, 'status', '--json', root], { encoding: 'utf8', timeout: BOUND_MS, killSignal: 'SIGKILL' });

describe('torture: config patterns cannot hang (issue 16 item 3)', () => {
  it('checkroom status answers on a catastrophic units.pattern and a name built for it', { timeout: 60_000 }, () => {
    const { root } = catastrophicWorkspace('units');
    const r = status(root);
    expect(r.signal, 'status was killed: it did not answer within the bound').toBeNull();
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.stdout) as { cells: { unit: string }[] };
    // ch01 matches the pattern; the 36-digit name does not (the `!`), and costs no more than ch01.
    expect([...new Set(doc.cells.map((c) => c.unit))]).toEqual(['ch01']);
  });

  it('checkroom status answers on a catastrophic sources.todo_pattern and a todo id built for it', { timeout: 60_000 }, () => {
    const { root, todoDb } = catastrophicWorkspace('todos');
    const db = new Database(todoDb);
    db.exec("CREATE TABLE todos (id TEXT PRIMARY KEY, title TEXT NOT NULL, status TEXT DEFAULT 'pending'); CREATE TABLE todo_deps (todo_id TEXT, depends_on TEXT);");
    db.prepare('INSERT INTO todos (id, title, status) VALUES (?, ?, ?)').run(`${CATASTROPHIC_ID}-research`, 'hostile', 'pending');
    db.prepare('INSERT INTO todos (id, title, status) VALUES (?, ?, ?)').run('ch01-research', 'fine', 'done');
    db.close();
    const r = status(root);
    expect(r.signal, 'status was killed: it did not answer within the bound').toBeNull();
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.stdout) as { todos: { ok: boolean; ready: string[] } };
    expect(doc.todos.ok).toBe(true);
    expect(doc.todos.ready).toEqual([`${CATASTROPHIC_ID}-research`]);
  });

  it('a lookahead in units.pattern is refused at load, naming the field and why', () => {
    const { root } = catastrophicWorkspace('units');
    execFileSync('sh', ['-c', `printf 'units:\\n  pattern: "ch(?=\\\\\\\\d)\\\\\\\\d+"\\n' > ${JSON.stringify(join(root, 'checkroom.yaml'))}`]);
    const r = spawnSync('node', [CLI, 'status', root], { encoding: 'utf8', timeout: BOUND_MS, killSignal: 'SIGKILL' });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('units.pattern');
    expect(r.stderr).toContain('lookahead');
    expect(r.stderr).toContain('RE2 (linear time');
  });
});

describe.skipIf(!hasTmux())('torture: the control room on a catastrophic pattern (tmux 80×24)', () => {
  const { room } = tmuxRooms(afterAll);

  it('exits on SIGTERM, the terminal restored', { timeout: 90_000 }, async () => {
    const { root } = catastrophicWorkspace('units');
    const t = room(root);
    // The first frame is drawn before the scan: from here the scan runs (or has run).
    await t.waitFor(/checkroom: opening|checkroom ·/);
    const shell = t.tmux('display-message', '-p', '-t', 'cr', '#{pane_pid}').trim();
    const node = execFileSync('pgrep', ['-P', shell], { encoding: 'utf8' }).trim().split('\n')[0];
    // At once: with backtracking the scan never ends and the signal was never handled.
    process.kill(Number(node), 'SIGTERM');
    const screen = await t.waitFor('EXITED-', BOUND_MS);
    expect(screen).toContain('EXITED-143');
    expect(t.alternateOn()).toBe(false);
  });
});
