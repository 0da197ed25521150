import { afterEach, describe, expect, it } from 'vitest';
import { cpSync, existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import chalk from 'chalk';
import Database from 'better-sqlite3';
import { createLiveWorkspace } from '../../../src/live/live-workspace.js';
import { createAppStore } from '../../../src/ui/store/store.js';
import { appendJournal } from '../../../src/run/journal/journal.js';
import type { SessionOptions } from '../../../src/ui/recovery/types.js';
import { NO_COLOR_THEME } from '../../../src/text/theme.js';
import { renderRoom, tick, unmountAll, withoutReverse } from '../../helpers/ink.js';
import { copyDemo, DEMO, PHASE_1_2, summaries, tempDir, writeFiles } from '../../helpers/workspace.js';

// The control room's recovery features on temp copies of the demo at 80×24 with the
// NO_COLOR theme (chalk forced to colour, so a stray colour would show): the three levels in
// the Sources view, RESUME.md (drift, write, milestone, quit offer), the todo write-back, the
// recover report on start and its rebuild, the backups panel. Frames and files are checked.

const STAMP = '20261130-051200';
const squash = (s: string) => s.replace(/\s+/g, '');

async function mount(dir: string, o: { session?: SessionOptions; readonly?: boolean } = {}) {
  chalk.level = 3;
  const live = await createLiveWorkspace(dir, { watch: false });
  const store = createAppStore({ live, readonly: o.readonly, session: o.session, now: () => new Date(2026, 10, 30, 5, 12, 0) });
  const { raw, press } = await renderRoom(store, live, NO_COLOR_THEME, 24, 80);
  const frame = () => {
    const f = raw();
    // Every frame: no colour under NO_COLOR (the selection's reverse video is not a colour:
    // issue 18 item 5), never taller than the terminal (one row is kept free).
    expect(withoutReverse(f)).not.toContain('\u001b');
    expect(f.split('\n').length).toBeLessThan(24);
    return stripVTControlCharacters(f);
  };
  const waitFor = async (text: string | RegExp, timeout = 5000) => {
    const t0 = Date.now();
    while (!(typeof text === 'string' ? squash(frame()).includes(squash(text)) : text.test(frame()))) {
      if (Date.now() - t0 > timeout) throw new Error(`timed out waiting for ${text}; frame:\n${frame()}`);
      await tick(20);
    }
  };
  const idle = async () => {
    await tick(30);
    await store.getState().idle();
    await tick(30);
  };
  return { frame, press, waitFor, idle, store, ws: () => store.getState().ws };
}

afterEach(async () => {
  chalk.level = 0;
  await unmountAll();
});

const backupsOf = (root: string, rel: string) =>
  readdirSync(join(root, dirname(rel)))
    .filter((f) => f.startsWith(`${rel.split('/').pop()}.bak.`))
    .sort();

describe('Sources view: the three recovery levels and RESUME.md', () => {
  it('shows level 1, level 2 (ready todos, a disagreement, a dangling dependency), level 3 and RESUME drift', async () => {
    const m = await mount(copyDemo());
    await m.press('4');
    await m.idle();
    const f = m.frame();
    expect(f).toContain('checkpoint.md (zh) updated 2026-11-28 14:03');
    expect(f).toContain('1 checkpoint.md');
    expect(f).toContain('2 todos.db');
    expect(f).toContain('3 disk (decides)');
    expect(f).toContain('4 ready · 3 disagree');
    expect(f).toContain('ready todos: ch03-r2, ch07-research, ch08-research, ch09-research');
    expect(f).toMatch(/RESUME\.md \d+d \d+h old \(2026-11-27 18:40\) · \d+ statements the disk contradicts/);
    // The level-2 rows: a filter brings the table's disagreement and the dangling edge into view.
    await m.press('/', ...'ch03-r1', '\r');
    expect(m.frame()).toMatch(/› todo ch03-r1\s+in_progress\s+done\s+the marker proves done/);
    await m.press('\u001b', '/', ...'dangling', '\r');
    expect(m.frame()).toContain('todo ch09-draft depends on ch09-outline, which does not exist');
    await m.press('\u001b', '/', ...'resume', '\r');
    const drift = m.store.getState().recovery.resume!.disagreements;
    expect(drift.length).toBeGreaterThan(0);
    expect(m.frame()).toContain(`RESUME.md        ${drift[0].slice(0, 40)}`);
  });

  it('writes RESUME.md after a confirmation; the old letter is backed up', async () => {
    const m = await mount(copyDemo());
    const root = m.ws().root;
    const before = readFileSync(join(root, 'RESUME.md'), 'utf8');
    await m.press('4');
    await m.idle();
    await m.press('W');
    await m.waitFor('Confirm: Write RESUME.md');
    await m.waitFor(`RESUME.md → RESUME.md.bak.${STAMP} (a copy of the old letter)`);
    expect(m.frame()).toContain('fixes: RESUME.md says');
    await m.press('n');
    expect(backupsOf(root, 'RESUME.md')).toEqual([]);
    await m.press('W');
    await m.waitFor('Confirm: Write RESUME.md');
    await m.press('y');
    await m.idle();
    expect(backupsOf(root, 'RESUME.md')).toEqual([`RESUME.md.bak.${STAMP}`]);
    expect(readFileSync(join(root, `RESUME.md.bak.${STAMP}`), 'utf8')).toBe(before);
    const after = readFileSync(join(root, 'RESUME.md'), 'utf8');
    expect(after).not.toBe(before);
    expect(after).toContain('2026-11-30 05:12');
    await m.waitFor(`wrote RESUME.md; the previous letter is in RESUME.md.bak.${STAMP}`);
    // The new letter agrees with the disk.
    expect(m.store.getState().recovery.resume!.disagreements).toEqual([]);
    expect(m.frame()).toContain('agrees with the disk · W rewrites it');
  });

  it('writes back the todos the disk proves done, after listing them', async () => {
    const m = await mount(copyDemo());
    const root = m.ws().root;
    const status = (id: string) => {
      const db = new Database(join(root, 'todos.db'), { readonly: true });
      try {
        return (db.prepare('SELECT status FROM todos WHERE id = ?').get(id) as { status: string }).status;
      } finally {
        db.close();
      }
    };
    expect(status('ch03-r1')).toBe('in_progress');
    await m.press('4', 't');
    await m.waitFor('Confirm: Write back 1 proven todo to todos.db');
    expect(m.frame()).toContain('todos.db: ch03-r1: in_progress → done (ch03 r1 is done on disk)');
    await m.press('y');
    await m.idle();
    expect(status('ch03-r1')).toBe('done');
    // Only the proven todo changed: the table's other disagreements stay for a human.
    expect(status('ch02-panel')).toBe('done');
    await m.waitFor('todos.db: 1 todo set to done (ch03-r1)');
    expect(m.ws().todos!.disagreements.map((d) => d.todoId)).not.toContain('ch03-r1');
  });

  it('refuses the writing actions in read-only mode', async () => {
    const m = await mount(copyDemo(), { readonly: true });
    await m.press('4', 'W');
    expect(m.frame()).toContain('read-only mode: "write RESUME.md" is disabled');
    await m.press('t');
    expect(m.frame()).toContain('read-only mode: "write back todos" is disabled');
    expect(m.frame()).not.toContain('W rewrites');
  });
});

describe('the recover report on start', () => {
  it('opens over the demo (an interrupted session), scrolls, and esc closes it', async () => {
    const m = await mount(copyDemo(), { session: { recoverOnStart: true } });
    await m.waitFor('checkroom recover');
    const f = m.frame();
    expect(f).toContain('(dry run');
    expect(f).toContain('The last session was interrupted');
    expect(f).toContain('R rebuild · esc close');
    await m.press('\u001b[6~'); // PgDn: further down the report
    await m.press('G');
    expect(m.frame()).toMatch(/Continue with \(\d+ steps\)/);
    await m.press('\u001b');
    expect(m.frame()).not.toContain('checkroom recover');
    expect(m.frame()).toContain('[1 Progress]');
    await m.press(':', ...'recover', '\r');
    await m.waitFor('checkroom recover');
  });

  it('does not open after a clean quit, though the demo has half-products (issue 8 item 6)', async () => {
    const dir = copyDemo();
    await appendJournal(dir, { type: 'session', at: 1, kind: 'start', pid: 4242 });
    await appendJournal(dir, { type: 'session', at: 2, kind: 'stop', pid: 4242 });
    const m = await mount(dir, { session: { recoverOnStart: true } });
    await m.idle();
    await tick(100);
    expect(m.ws().partials.length).toBeGreaterThan(0);
    expect(m.store.getState().recovery.recover).toBeNull();
    expect(m.frame()).not.toContain('checkroom recover');
  });

  it('opens when the last journaled session never stopped', async () => {
    const dir = copyDemo();
    await appendJournal(dir, { type: 'session', at: 1, kind: 'start', pid: 4242 });
    const m = await mount(dir, { session: { recoverOnStart: true } });
    await m.waitFor('The last session was interrupted');
  });

  it('does not open on a clean workspace', async () => {
    const dir = tempDir();
    writeFiles(dir, { ...PHASE_1_2, 'meta/chapter-summaries.md': summaries([]) });
    const m = await mount(dir, { session: { recoverOnStart: true } });
    await m.idle();
    await tick(100);
    expect(m.store.getState().recovery.recover).toBeNull();
    expect(m.frame()).not.toContain('checkroom recover');
    expect(m.frame()).toContain('[1 Progress]');
  });

  it('rebuilds checkpoint.md and RESUME.md from the overlay after naming both backups', async () => {
    const m = await mount(copyDemo(), { session: { recoverOnStart: true } });
    const root = m.ws().root;
    const cp = readFileSync(join(root, 'checkpoint.md'), 'utf8');
    const letter = readFileSync(join(root, 'RESUME.md'), 'utf8');
    await m.waitFor('checkroom recover');
    await m.press('R');
    await m.waitFor('Confirm: Rebuild checkpoint.md and RESUME.md from the disk');
    await m.waitFor(`checkpoint.md → checkpoint.md.bak.${STAMP} (a copy of the old file)`);
    await m.waitFor(`RESUME.md → RESUME.md.bak.${STAMP} (a copy of the old file)`);
    expect(readFileSync(join(root, 'checkpoint.md'), 'utf8')).toBe(cp);
    await m.press('y');
    await m.idle();
    expect(readFileSync(join(root, `checkpoint.md.bak.${STAMP}`), 'utf8')).toBe(cp);
    expect(readFileSync(join(root, `RESUME.md.bak.${STAMP}`), 'utf8')).toBe(letter);
    expect(readFileSync(join(root, 'checkpoint.md'), 'utf8')).not.toBe(cp);
    expect(readFileSync(join(root, 'RESUME.md'), 'utf8')).not.toBe(letter);
    await m.waitFor(`rebuilt checkpoint.md (previous in checkpoint.md.bak.${STAMP})`);
    await m.press('G');
    await m.waitFor('5 Rebuilt');
    expect(m.frame()).toContain(`[done] RESUME.md`);
    expect(m.ws().discrepancies).toEqual([]);
  });
});

describe('RESUME.md at milestones and on quit', () => {
  it('offers to write a stale RESUME.md on q: n quits without writing, esc stays', async () => {
    const m = await mount(copyDemo(), { session: { resumeOnQuit: true } });
    const root = m.ws().root;
    await m.idle();
    await m.press('q');
    await m.waitFor('Quitting: write RESUME.md first?');
    expect(m.frame()).toContain('y write and quit · n just quit · esc stay');
    await m.press('\u001b');
    expect(m.store.getState().quit).toBe(false);
    expect(m.frame()).toContain('not quitting');
    await m.press('q', 'n');
    expect(m.store.getState().quit).toBe(true);
    expect(backupsOf(root, 'RESUME.md')).toEqual([]);
  });

  it('y writes RESUME.md (backed up) and quits', async () => {
    const m = await mount(copyDemo(), { session: { resumeOnQuit: true } });
    const root = m.ws().root;
    await m.idle();
    await m.press('q', 'y');
    await m.idle();
    expect(m.store.getState().quit).toBe(true);
    expect(backupsOf(root, 'RESUME.md')).toEqual([`RESUME.md.bak.${STAMP}`]);
    expect(readFileSync(join(root, 'RESUME.md'), 'utf8')).toContain('2026-11-30 05:12');
  });

  it('quits at once when RESUME.md is fresh, and ctrl-c always does', async () => {
    const dir = tempDir();
    writeFiles(dir, { ...PHASE_1_2, 'meta/chapter-summaries.md': summaries([]) });
    const m = await mount(dir, { session: { resumeOnQuit: true } });
    await m.idle();
    await m.press('W', '4', 'W');
    await m.waitFor('Confirm: Write RESUME.md');
    await m.press('y');
    await m.idle();
    expect(existsSync(join(dir, 'RESUME.md'))).toBe(true);
    expect(m.store.getState().recovery.resume!.stale).toBe(false);
    await m.press('q');
    expect(m.store.getState().quit).toBe(true);
    const b = await mount(copyDemo(), { session: { resumeOnQuit: true } });
    await b.idle();
    await b.press('\u0003');
    expect(b.store.getState().quit).toBe(true);
  });

  it('rewrites RESUME.md with a one-line notice when the phase changes', async () => {
    const m = await mount(copyDemo(), { session: { milestones: true } });
    const root = m.ws().root;
    await m.idle();
    const ws = m.ws();
    m.store.getState().setWorkspace({ ...ws, currentPhase: 4 });
    await m.idle();
    expect(backupsOf(root, 'RESUME.md')).toEqual([`RESUME.md.bak.${STAMP}`]);
    await m.waitFor('milestone: phase changed: Phase 3 → Phase 4 · RESUME.md rewritten (previous in');
  });
});

describe('backups panel', () => {
  it('lists every backup of the selected partial with a diff, and restores one keeping both versions', async () => {
    const dir = copyDemo();
    const rel = 'drafts/ch05-draft.md';
    const current = readFileSync(join(dir, rel), 'utf8');
    writeFileSync(join(dir, `${rel}.bak.20261129-100000`), 'old version one\n');
    writeFileSync(join(dir, `${rel}.bak.20261129-110000`), `an extra opening line\n${current}`);
    const m = await mount(dir);
    const idx = m.ws().partials.findIndex((p) => p.path === rel);
    expect(idx).toBeGreaterThanOrEqual(0);
    await m.press('2', 'g', ...Array(idx).fill('j'), 'B');
    await m.waitFor(`Backups of ${rel} 2 found`);
    await m.waitFor('−1 +0 lines vs the current');
    await m.waitFor('-an extra opening line');
    const f = m.frame();
    // Newest first; the selected one's diff is shown.
    expect(f.indexOf('bak.20261129-110000')).toBeLessThan(f.indexOf('bak.20261129-100000'));
    expect(f).toContain('-an extra opening line');
    await m.press('j');
    await m.waitFor('-old version one');
    await m.press('\r');
    await m.waitFor(`Confirm: Restore ${rel} from bak.20261129-100000`);
    await m.waitFor(`${rel} → ${rel}.bak.${STAMP} (the current version is kept)`);
    await m.press('y');
    await m.idle();
    expect(readFileSync(join(dir, rel), 'utf8')).toBe('old version one\n');
    expect(readFileSync(join(dir, `${rel}.bak.${STAMP}`), 'utf8')).toBe(current);
    expect(backupsOf(dir, rel)).toEqual([`ch05-draft.md.bak.20261129-100000`, `ch05-draft.md.bak.20261129-110000`, `ch05-draft.md.bak.${STAMP}`]);
    await m.waitFor(`Backups of ${rel} 3 found`);
    await m.press('\u001b');
    expect(m.frame()).toContain('Half-products');
  });

  it('opens from a cell of the matrix too, and says when there is none', async () => {
    const m = await mount(copyDemo());
    await m.press('B');
    await m.waitFor(/Backups of research\/ch01-research\.md 0 found/);
    expect(m.frame()).toContain('no backups of research/ch01-research.md');
  });
});

describe('gate-file workflows in the control room', () => {
  it('renders the demo workflow: matrix, partials, plan and sources', async () => {
    const dir = tempDir('checkroom-gates-ui-');
    cpSync(join(DEMO, 'gates-workflow'), dir, { recursive: true });
    const m = await mount(dir, { session: { recoverOnStart: true } });
    // Interrupted (a cut-off gate, a failed validation): the report opens, with the workflow.
    await m.waitFor('Workflows (gate files)');
    expect(m.frame()).toContain('1764400000-k3f9a2');
    await m.press('\u001b');
    const f = m.frame();
    expect(f).toContain('1764400000-k3f');
    expect(f).toMatch(/5\/9 done/);
    await m.press('l', 'l', 'l', 'l', 'l', '\r');
    await m.waitFor('04 developer');
    expect(m.frame()).toContain('VERIFICATION_FAILED');
    await m.press('\u001b', '2');
    // The path gives way from its start, its names whole (issue 18 item 5: it was cut mid-name).
    expect(m.frame()).toMatch(/› truncated\s+295\s+…\/gates\/1764400000-k3f9a2\/04\.5-devops\.json/);
    expect(m.frame()).toContain('s04.5: gate cut off mid-write');
    await m.press('3');
    expect(m.frame()).toMatch(/› P1 1764400000-k3f9\S* retry\s+developer: VERIFICATION_FAILED/);
    await m.press('4');
    await m.idle();
    expect(m.frame()).toContain('1 plan files');
    expect(m.frame()).toContain('3 gate files (decide)');
    expect(m.frame()).toMatch(/› 1764400000-k3f9\S*\s+\S+ done\s+partial\s+the plan says completed/);
    expect(m.frame()).toContain('gate-file workflow · plan in_progress · 1 discrepancy');
    // No checkpoint.md to rewrite here: `w` says why instead of offering a write.
    await m.press('w');
    expect(m.frame()).toContain('gate-file workflows have no checkpoint.md');
    expect(existsSync(join(dir, 'checkpoint.md'))).toBe(false);
  });
});
