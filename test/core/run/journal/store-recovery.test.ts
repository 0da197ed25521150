import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { appendJournal } from '../../../../src/run/journal/journal.js';
import { closeStores, openStore, STAMP } from '../../../helpers/store.js';
import { copyDemo, PHASE_1_2, summaries, tempDir, writeFiles } from '../../../helpers/workspace.js';

// The recovery slice (store-recovery.ts) through `feed`, without React (issue 9 item 3):
// RESUME.md, the todo write-back, the recover report and its rebuild, the backups panel and
// restore, and the quit offer. State and files on disk; the clock is pinned.

afterEach(closeStores);

const backupsOf = (root: string, rel: string) =>
  readdirSync(join(root, dirname(rel)))
    .filter((f) => f.startsWith(`${rel.split('/').pop()}.bak.`))
    .sort();

const todoStatus = (root: string, id: string): string => {
  const db = new Database(join(root, 'todos.db'), { readonly: true });
  try {
    return (db.prepare('SELECT status FROM todos WHERE id = ?').get(id) as { status: string }).status;
  } finally {
    db.close();
  }
};

describe('store: RESUME.md and the todo table', () => {
  it('W plans the letter with its backup and the fixes; y writes it and the drift is gone', async () => {
    const r = await openStore(copyDemo());
    const before = readFileSync(join(r.root, 'RESUME.md'), 'utf8');
    expect(r.s().recovery.resume?.disagreements.length).toBeGreaterThan(0);
    await r.press('4', 'W');
    const d = r.s().dialog!;
    expect(d.pending).toEqual({ type: 'recovery', action: { kind: 'resume', file: 'RESUME.md', backup: `RESUME.md.bak.${STAMP}` } });
    expect(d.lines[0]).toBe(`RESUME.md → RESUME.md.bak.${STAMP} (a copy of the old letter)`);
    expect(d.lines.some((l) => l.startsWith('  fixes: '))).toBe(true);
    await r.press('y');
    expect(readFileSync(join(r.root, `RESUME.md.bak.${STAMP}`), 'utf8')).toBe(before);
    expect(readFileSync(join(r.root, 'RESUME.md'), 'utf8')).toContain('2026-11-30 05:12');
    expect(r.s().recovery.resume?.disagreements).toEqual([]);
    expect(r.s().message).toEqual({ text: `wrote RESUME.md; the previous letter is in RESUME.md.bak.${STAMP}`, tone: 'ok' });
  });

  it('t writes back only the todos the disk proves done', async () => {
    const r = await openStore(copyDemo());
    expect(todoStatus(r.root, 'ch03-r1')).toBe('in_progress');
    await r.press('4', 't');
    expect(r.s().dialog?.pending).toEqual({ type: 'recovery', action: { kind: 'writeback', path: 'todos.db', ids: ['ch03-r1'] } });
    await r.press('n');
    expect(todoStatus(r.root, 'ch03-r1')).toBe('in_progress');
    await r.press('t', 'y');
    expect(todoStatus(r.root, 'ch03-r1')).toBe('done');
    expect(r.s().message).toEqual({ text: 'todos.db: 1 todo set to done (ch03-r1)', tone: 'ok' });
    expect(r.s().ws.todos!.disagreements.map((x) => x.todoId)).not.toContain('ch03-r1');
  });
});

describe('store: the recover report', () => {
  it('opens by itself after an interrupted session, scrolls, esc closes it', async () => {
    const dir = copyDemo();
    await appendJournal(dir, { type: 'session', at: 1, kind: 'start', pid: 4242 });
    const r = await openStore(dir, { session: { recoverOnStart: true } });
    expect(r.s().recovery.recover?.offset).toBe(0);
    await r.press('pgdn');
    expect(r.s().recovery.recover?.offset).toBeGreaterThan(0);
    await r.press('esc');
    expect(r.s().recovery.recover).toBeNull();
    await r.press(':', 'recover', 'enter');
    expect(r.s().recovery.recover?.report.dryRun).toBe(true);
  });

  it('stays closed after a clean stop', async () => {
    const dir = copyDemo();
    await appendJournal(dir, { type: 'session', at: 1, kind: 'start', pid: 4242 });
    await appendJournal(dir, { type: 'session', at: 2, kind: 'stop', pid: 4242 });
    const r = await openStore(dir, { session: { recoverOnStart: true } });
    expect(r.s().ws.partials.length).toBeGreaterThan(0);
    expect(r.s().recovery.recover).toBeNull();
  });

  it('R rebuilds checkpoint.md and RESUME.md after naming both backups', async () => {
    const r = await openStore(copyDemo());
    const cp = readFileSync(join(r.root, 'checkpoint.md'), 'utf8');
    await r.press(':', 'recover', 'enter', 'R');
    const d = r.s().dialog!;
    expect(d.title).toBe('Rebuild checkpoint.md and RESUME.md from the disk');
    expect(d.lines).toContain(`checkpoint.md → checkpoint.md.bak.${STAMP} (a copy of the old file)`);
    expect(d.lines).toContain(`RESUME.md → RESUME.md.bak.${STAMP} (a copy of the old file)`);
    await r.press('y');
    expect(readFileSync(join(r.root, `checkpoint.md.bak.${STAMP}`), 'utf8')).toBe(cp);
    expect(readFileSync(join(r.root, 'checkpoint.md'), 'utf8')).not.toBe(cp);
    expect(r.s().recovery.recover?.report.dryRun).toBe(false);
    expect(r.s().message?.text).toMatch(/^rebuilt checkpoint\.md \(previous in checkpoint\.md\.bak\.20261130-051200\), RESUME\.md/);
  });
});

describe('store: the backups panel', () => {
  it('B lists the backups of the picked file; enter restores one, keeping the current version', async () => {
    const r = await openStore(copyDemo());
    const f = r.s().ws.partials.find((p) => p.verdict === 'almost_certainly_partial')!;
    const i = r.s().ws.partials.indexOf(f);
    await r.press('2', 'g', ...Array(i).fill('j'));
    const original = readFileSync(join(r.root, f.path), 'utf8');
    await r.press('b', 'y');
    expect(existsSync(join(r.root, f.path))).toBe(false);
    // The file left the Partials list with its backup: the panel opens from its matrix cell.
    const row = r.s().ws.units.indexOf(f.unit);
    const col = r.s().ws.pipeline.steps.filter((s) => s.kind === 'file').findIndex((s) => s.id === f.step);
    await r.press('1', 'g', ...Array(row).fill('j'), ...Array(col).fill('l'));
    await r.press('B');
    const b = r.s().recovery.backups!;
    expect(b.file).toBe(f.path);
    expect(b.rows.map((x) => x.path)).toEqual([`${f.path}.bak.${STAMP}`]);
    await r.press('enter');
    expect(r.s().dialog?.pending).toEqual({ type: 'recovery', action: { kind: 'restore', backup: `${f.path}.bak.${STAMP}`, file: f.path, currentBackup: null } });
    await r.press('y');
    expect(readFileSync(join(r.root, f.path), 'utf8')).toBe(original);
    // The backup stays: a restore copies back.
    expect(backupsOf(r.root, f.path)).toEqual([`${f.path.split('/').pop()}.bak.${STAMP}`]);
    await r.press('esc');
    expect(r.s().recovery.backups).toBeNull();
  });
});

describe('store: the quit offer', () => {
  it('q offers to write a stale RESUME.md; n quits without writing it, esc stays', async () => {
    const r = await openStore(copyDemo(), { session: { resumeOnQuit: true } });
    const before = readFileSync(join(r.root, 'RESUME.md'), 'utf8');
    expect(r.s().recovery.resume?.stale).toBe(true);
    await r.press('q');
    expect(r.s().recovery.quitOffer).toBe(true);
    expect(r.s().quit).toBe(false);
    await r.press('esc');
    expect(r.s().recovery.quitOffer).toBe(false);
    expect(r.s().message).toEqual({ text: 'not quitting', tone: 'info' });
    await r.press('q', 'n');
    expect(r.s().quit).toBe(true);
    expect(readFileSync(join(r.root, 'RESUME.md'), 'utf8')).toBe(before);
  });

  it('y writes the letter, then quits', async () => {
    const r = await openStore(copyDemo(), { session: { resumeOnQuit: true } });
    await r.press('q', 'y');
    expect(r.s().quit).toBe(true);
    expect(r.s().busy).toBeNull();
    expect(backupsOf(r.root, 'RESUME.md')).toEqual([`RESUME.md.bak.${STAMP}`]);
    expect(r.s().message?.tone).toBe('ok');
  });
});

describe('store: what the recovery planners refuse, through feed', () => {
  it('R again after a rebuild says there is nothing left to rebuild', async () => {
    const r = await openStore(copyDemo());
    await r.press(':', 'recover', 'enter', 'R', 'y');
    const after = readdirSync(r.root).sort();
    await r.press('R');
    expect(r.s().dialog).toBeNull();
    expect(r.s().message?.text).toMatch(/^nothing to rebuild here: every file checkroom writes agrees with the disk/);
    expect(readdirSync(r.root).sort()).toEqual(after);
  });

  it('B on a file without backups says so; enter restores nothing; a view key closes the panel and acts', async () => {
    const r = await openStore(copyDemo());
    await r.press('2', 'g', 'B');
    const f = r.s().recovery.backups!.file;
    expect(r.s().recovery.backups).toMatchObject({ rows: [], hunks: [], note: `no backups of ${f} (backups are named ${f}.bak.<time>)` });
    await r.press('enter');
    expect(r.s().dialog).toBeNull();
    expect(r.s().message).toEqual({ text: 'no backup selected', tone: 'warn' });
    await r.press('3');
    expect(r.s().recovery.backups).toBeNull();
    expect(r.s().view).toBe('plan');
  });

  it('t in a workspace without a todo table says level 2 is optional', async () => {
    const root = tempDir('checkroom-store-recovery-');
    writeFiles(root, { ...PHASE_1_2, 'meta/chapter-summaries.md': summaries([]), 'checkroom.yaml': 'preset: book\nunits: { list: [ch01] }\nbatches: [{ id: 1, units: [ch01] }]\n' });
    const r = await openStore(root);
    await r.press('4', 't');
    expect(r.s().dialog).toBeNull();
    expect(r.s().message).toEqual({ text: 'no readable todo table in this workspace (level 2 is optional)', tone: 'info' });
  });

  it('a milestone rewrites RESUME.md by itself, keeping the previous letter (session milestones)', async () => {
    const r = await openStore(copyDemo(), { session: { milestones: true } });
    const prev = r.s().ws;
    // The same workspace with its open batches done (resume/milestone.ts decides what a milestone is).
    expect(prev.batches.some((b) => b.status !== 'done')).toBe(true);
    const next = { ...prev, batches: prev.batches.map((b) => ({ ...b, status: 'done' as const })) };
    r.s().setWorkspace(next);
    await r.s().idle();
    expect(r.s().message?.tone).toBe('ok');
    expect(r.s().message?.text).toMatch(/^milestone: .+ · RESUME\.md rewritten \(previous in RESUME\.md\.bak\.20261130-051200\)$/);
    expect(backupsOf(r.root, 'RESUME.md')).toEqual([`RESUME.md.bak.${STAMP}`]);
  });
});
