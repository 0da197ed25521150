import { afterAll, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { writeFileAtomic, WriteError } from '../../src/fs/atomic-write.js';
import { assertInside, ConfineError } from '../../src/fs/confine-path.js';
import { backupFile, BackupError } from '../../src/backups/backups.js';
import { sweepTempFiles } from '../../src/fs/sweep-temp.js';
import { appendJournal } from '../../src/run/journal/journal.js';
import { writeBackTodos } from '../../src/sources/todos-write.js';
import Database from 'better-sqlite3';
import { acquireDriverLock } from '../../src/run/supervisor/lock.js';
import { copyDemo, tempDir } from '../helpers/workspace.js';
import { hasTmux, tmuxRooms, CLI } from '../helpers/tmux.js';

// Issue 16 item 1: a directory of the workspace that is a symlink out of it (`.checkroom`,
// `drafts/`) is an escape like `..`. Every write through it is refused with a sentence that
// says what to do, and the directory it points to is left exactly as it was.

const { room } = tmuxRooms(afterAll);

/** A workspace whose `name` is a symlink to a directory outside it (holding one file of its own). */
function linkedOut(name: string, root = tempDir('checkroom-ws-')): { root: string; outside: string; before: string[] } {
  const outside = tempDir('checkroom-outside-');
  writeFileSync(join(outside, 'mine.md'), 'the user’s own file\n');
  rmSync(join(root, name), { recursive: true, force: true });
  symlinkSync(outside, join(root, name));
  return { root, outside, before: readdirSync(outside).sort() };
}

describe('writes through a symlinked directory that points out of the workspace are refused', () => {
  it('assertInside: `..`, a linked parent and a link at the last component (for append) are escapes; a missing subdirectory is not', () => {
    const { root } = linkedOut('drafts');
    const refused = (kind: Parameters<typeof assertInside>[0], p: string) => () => assertInside(kind, p, [root]);
    expect(refused('write', join(root, 'drafts', 'x.md'))).toThrow(ConfineError);
    expect(refused('write', join(root, 'a', '..', '..', 'x.md'))).toThrow(/changes nothing outside the workspace/);
    expect(refused('mkdir', join(root, 'drafts', 'new', 'deeper'))).toThrow(/make it a real directory/);
    symlinkSync('/etc/passwd', join(root, 'log.md'));
    expect(refused('append', join(root, 'log.md'))).toThrow(ConfineError);
    // A dangling link: a write through it would create its target, outside.
    symlinkSync(join(tempDir('checkroom-outside-'), 'not-yet.db'), join(root, 'todos.db'));
    expect(refused('write', join(root, 'todos.db'))).toThrow(ConfineError);
    // Unlinking a link removes the link, in the workspace: allowed.
    expect(assertInside('unlink', join(root, 'log.md'), [root])).toBe(join(root, 'log.md'));
    expect(assertInside('mkdir', join(root, 'not', 'yet', 'there'), [root])).toBe(join(root, 'not', 'yet', 'there'));
  });

  it('writeFileAtomic into drafts/ -> outside: a WriteError (ECONFINE) that says what to do; nothing written there', async () => {
    const { root, outside, before } = linkedOut('drafts');
    const err = await writeFileAtomic(join(root, 'drafts', 'ch01-draft.md'), 'x', [root]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WriteError);
    expect((err as WriteError).code).toBe('ECONFINE');
    expect((err as WriteError).message).toMatch(/refusing to replace .*drafts\/ch01-draft\.md: it lands at .*outside .*make it a real directory/);
    expect(readdirSync(outside).sort()).toEqual(before);
  });

  it('backupFile of a file in drafts/ -> outside: a BackupError; no backup made there, the file kept', async () => {
    const { root, outside } = linkedOut('drafts');
    writeFileSync(join(outside, 'ch01-draft.md'), 'draft\n');
    const err = await backupFile(root, 'drafts/ch01-draft.md').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BackupError);
    expect((err as BackupError).code).toBe('ECONFINE');
    expect(readdirSync(outside).sort()).toEqual(['ch01-draft.md', 'mine.md']);
  });

  it('the temp sweep leaves a temp-named file in drafts/ -> outside alone and says why', async () => {
    const { root, outside } = linkedOut('drafts');
    const name = '.ch01-draft.md.999999999.0a1b2c3d.tmp';
    writeFileSync(join(outside, name), 'not ours to remove');
    const r = await sweepTempFiles(root, [join(root, 'drafts')], { isAlive: () => false });
    expect(r.swept).toEqual([]);
    expect(r.failed).toEqual([{ path: `drafts/${name}`, why: expect.stringMatching(/refusing to delete .*outside/) }]);
    expect(readFileSync(join(outside, name), 'utf8')).toBe('not ours to remove');
  });

  it('todos.db linked to a database outside: the write-back refuses and leaves it as it was', () => {
    const root = tempDir('checkroom-ws-');
    const outside = join(tempDir('checkroom-outside-'), 'todos.db');
    const db = new Database(outside);
    db.exec(`CREATE TABLE todos (id TEXT PRIMARY KEY, status TEXT, updated_at TEXT); INSERT INTO todos VALUES ('ch01-draft', 'pending', NULL);`);
    db.close();
    symlinkSync(outside, join(root, 'todos.db'));
    expect(() => writeBackTodos(join(root, 'todos.db'), [{ id: 'ch01-draft', status: 'done' }], [root])).toThrow(/write-back refused, nothing was changed: refusing to write/);
    const after = new Database(outside, { readonly: true });
    expect(after.prepare(`SELECT status FROM todos WHERE id = 'ch01-draft'`).pluck().get()).toBe('pending');
    after.close();
  });

  it('.checkroom -> outside: the journal and the driver lock refuse; nothing written there', async () => {
    const { root, outside, before } = linkedOut('.checkroom');
    await expect(appendJournal(root, { type: 'session', at: 1, kind: 'start', pid: 42 })).rejects.toThrow(ConfineError);
    expect(() => acquireDriverLock(root)).toThrow(/refusing to .*\.checkroom/);
    expect(readdirSync(outside).sort()).toEqual(before);
  });

  it('.checkroom -> outside: status, status --json and plan (the built binary) write nothing there', async () => {
    const { root, outside, before } = linkedOut('.checkroom', copyDemo());
    for (const args of [['status', root], ['status', '--json', root], ['plan', root]]) {
      const r = await execa(process.execPath, [CLI, ...args], { reject: false, env: { ...process.env, XDG_RUNTIME_DIR: tempDir('checkroom-xdg-') } });
      expect(r.exitCode, r.stderr).toBe(0);
    }
    expect(readdirSync(outside).sort()).toEqual(before);
  });

  it.skipIf(!hasTmux())('.checkroom -> outside: the control room opens, says its socket is off and why, and writes nothing there', { timeout: 90_000 }, async () => {
    const { root, outside, before } = linkedOut('.checkroom', copyDemo());
    const xdg = tempDir('checkroom-xdg-');
    const t = room(root, { env: { XDG_RUNTIME_DIR: xdg } });
    await t.waitFor(/control socket off .*refusing to/, 60_000);
    // Quit, without writing RESUME.md if asked: whatever runs at exit has run when it is gone.
    t.keys('q');
    const quit = await t.waitFor(/EXITED-\d|RESUME\.md first\?/);
    if (!/EXITED-\d/.test(quit)) {
      t.keys('n');
      await t.waitFor(/EXITED-\d/);
    }
    expect(readdirSync(outside).sort()).toEqual(before);
    t.kill();
  });
});
