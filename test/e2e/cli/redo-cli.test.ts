import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { copyDemo } from '../../helpers/workspace.js';
import { CLI } from '../../helpers/tmux.js';
import { acquireDriverLock } from '../../../src/run/supervisor/lock.js';
import { readJournal } from '../../../src/run/journal/journal.js';

// `checkroom redo` from the built binary (docs/redo.md): the same preview as D, --yes applies
// it, --json says it for scripts; refused while a checkroom drives; a bad fork is bad usage.

const run = (...args: string[]) => {
  const r = spawnSync('node', [CLI, ...args], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', CHECKROOM_SOCKET: 'off' } });
  return { code: r.status, out: r.stdout, err: r.stderr };
};

describe('checkroom redo', () => {
  it('previews without touching anything; --yes backs up and queues; one journal record', async () => {
    const dir = copyDemo();
    const p = run('redo', dir, 'ch03', 'draft');
    expect(p.code).toBe(0);
    expect(p.out).toContain('Redo from ch03 draft: 9 cells, 4 files');
    expect(p.out).toContain('(preview: nothing was touched; add --yes to redo)');
    expect(existsSync(join(dir, 'drafts/ch03-draft.md'))).toBe(true);
    expect((await readJournal(dir)).events).toEqual([]);

    const y = run('redo', dir, 'ch03', 'draft', '--yes', '--json');
    expect(y.code).toBe(0);
    const j = JSON.parse(y.out) as { cells: { unit: string; step: string }[]; files: { path: string; bytes: number }[]; applied: { moves: { path: string; backup: string }[] } };
    expect(j.cells.map((c) => `${c.unit}/${c.step}`)).toEqual(['ch03/draft', 'ch03/r1', 'ch03/r2', 'ch03/r3', 'ch03/review', 'ch03/panel', 'ch03/memory', 'ch03/final', 'ch03/html']);
    expect(j.applied.moves.map((m) => m.path)).toEqual(j.files.map((f) => f.path));
    expect(existsSync(join(dir, 'drafts/ch03-draft.md'))).toBe(false);
    const draftBackup = j.applied.moves.find((m) => m.path === 'drafts/ch03-draft.md')!.backup;
    expect(readFileSync(join(dir, draftBackup)).length).toBe(j.files[0].bytes);
    expect((await readJournal(dir)).events.map((e) => e.type)).toEqual(['redo_applied']);
  });

  it('refused while another checkroom drives the workspace; nothing touched', async () => {
    const dir = copyDemo();
    const lock = acquireDriverLock(dir);
    try {
      const r = run('redo', dir, 'ch03', 'draft', '--yes');
      expect(r.code).toBe(1);
      expect(r.out).toMatch(/cannot redo: another checkroom \(pid \d+/);
      expect(r.out).toContain(':redo ch03/draft (nothing was touched)');
      expect(existsSync(join(dir, 'drafts/ch03-draft.md'))).toBe(true);
    } finally {
      lock.release();
    }
  });

  it('an unknown agent, a prompt outside the workspace, an unknown cell: exit 2 with what to do', () => {
    const dir = copyDemo();
    expect(run('redo', dir, 'ch03', 'draft', '--agent', 'nobody')).toMatchObject({ code: 2, err: expect.stringContaining('no agent "nobody" in checkroom.yaml; agents: researcher') });
    expect(run('redo', dir, 'ch03', 'draft', '--prompt', '../x.md')).toMatchObject({ code: 2, err: expect.stringContaining('is outside the workspace') });
    expect(run('redo', dir, 'ch99', 'draft')).toMatchObject({ code: 2, err: expect.stringContaining('no cell ch99 draft') });
  });
});
