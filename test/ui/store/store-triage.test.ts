import { afterEach, describe, expect, it } from 'vitest';
import { appendFileSync, existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { partialItems } from '../../../src/ui/store/select.js';
import { loadConfig } from '../../../src/pipeline/config/config.js';
import { openSupervisor } from '../../../src/run/supervisor/supervisor.js';
import { readJournal } from '../../../src/run/journal/journal.js';
import { closeStores, openStore, STAMP, type StoreRoom } from '../../helpers/store.js';
import { copyDemo } from '../../helpers/workspace.js';

// The triage slice (store-triage.ts) through `feed`, without React (issue 9 item 3): each
// request plans a dialog naming exact files, `n` changes nothing, `y` changes the disk as
// announced, and the state (undo stack, redo queue, skips) follows. The clock is pinned.

afterEach(closeStores);

const backupsOf = (root: string, rel: string) => readdirSync(join(root, dirname(rel))).filter((f) => f.startsWith(`${rel.split('/').pop()}.bak.`));

/** Partials view, cursor on the first partial with this verdict; its file. */
async function pick(r: StoreRoom, verdict: string) {
  const items = partialItems(r.s().ws, '', r.s().skipped);
  const i = items.findIndex((x) => x.file.verdict === verdict);
  expect(i).toBeGreaterThanOrEqual(0);
  await r.press('2', 'g', ...Array(i).fill('j'));
  return items[i].file;
}

describe('store: back up, redo, undo', () => {
  it('b plans the exact backup, n changes nothing, y moves the file and u moves it back', async () => {
    const r = await openStore(copyDemo());
    const f = await pick(r, 'almost_certainly_partial');
    const original = readFileSync(join(r.root, f.path), 'utf8');
    await r.press('b');
    expect(r.s().dialog).toMatchObject({ title: `Back up ${f.path}`, lines: [`${f.path} → ${f.path}.bak.${STAMP}`], pending: { type: 'moves', redo: [] } });
    await r.press('n');
    expect(r.s().dialog).toBeNull();
    expect(r.s().message).toEqual({ text: 'cancelled: nothing was changed', tone: 'info' });
    expect(backupsOf(r.root, f.path)).toEqual([]);

    await r.press('b', 'y');
    expect(existsSync(join(r.root, f.path))).toBe(false);
    expect(readFileSync(join(r.root, `${f.path}.bak.${STAMP}`), 'utf8')).toBe(original);
    expect(r.s().busy).toBeNull();
    expect(r.s().undo.map((g) => g.moves)).toEqual([[{ path: f.path, backup: `${f.path}.bak.${STAMP}` }]]);
    // The rescan after the action: the file is no longer a partial.
    expect(r.s().ws.partials.map((p) => p.path)).not.toContain(f.path);

    await r.press('u');
    expect(r.s().dialog?.lines).toEqual([`${f.path}.bak.${STAMP} → ${f.path}`]);
    await r.press('y');
    expect(readFileSync(join(r.root, f.path), 'utf8')).toBe(original);
    expect(backupsOf(r.root, f.path)).toEqual([]);
    expect(r.s().undo).toEqual([]);
    expect(r.s().message).toEqual({ text: `restored ${f.path}`, tone: 'ok' });
  });

  it('d backs up and queues the step for relaunch; undo takes it off the queue', async () => {
    const r = await openStore(copyDemo());
    const f = await pick(r, 'almost_certainly_partial');
    await r.press('d');
    expect(r.s().dialog?.lines).toContain(`queue ${f.unit} ${f.step} for relaunch (shown in the Plan view)`);
    await r.press('y');
    expect(r.s().redoQueue).toMatchObject([{ unit: f.unit, step: f.step, path: f.path, backup: `${f.path}.bak.${STAMP}` }]);
    expect(r.s().message?.text).toMatch(/, 1 queued \(u undoes\)$/);
    await r.press('u', 'y');
    expect(r.s().redoQueue).toEqual([]);
    expect(existsSync(join(r.root, f.path))).toBe(true);
  });

  it('c backs up every almost-certain partial in one confirmation', async () => {
    const r = await openStore(copyDemo());
    const targets = r.s().ws.partials.filter((p) => p.verdict === 'almost_certainly_partial');
    expect(targets.length).toBeGreaterThan(0);
    await r.press('2', 'c');
    expect(r.s().dialog?.title).toMatch(/^Conservative strategy: back up \d+ almost-certain partials? and redo$/);
    await r.press('y');
    for (const t of targets) {
      expect(existsSync(join(r.root, t.path))).toBe(false);
      expect(existsSync(join(r.root, `${t.path}.bak.${STAMP}`))).toBe(true);
    }
    expect(r.s().redoQueue.map((q) => q.path).sort()).toEqual(targets.map((t) => t.path).sort());
    await r.press('c');
    expect(r.s().message?.text).toMatch(/^conservative strategy: no almost_certainly_partial file to back up/);
  });
});

describe('store: keep, skip', () => {
  it('m appends the marker after keeping a copy', async () => {
    const r = await openStore(copyDemo());
    const f = await pick(r, 'maybe_complete');
    const original = readFileSync(join(r.root, f.path), 'utf8');
    const marker = r.s().ws.pipeline.steps.find((s) => s.id === f.step)!.marker!;
    await r.press('m');
    expect(r.s().dialog?.lines).toEqual([`${f.path} → ${f.path}.bak.${STAMP} (a copy; the file stays)`, `${f.path}: append "<!-- ${marker} -->" as the last line`]);
    await r.press('y');
    expect(readFileSync(join(r.root, `${f.path}.bak.${STAMP}`), 'utf8')).toBe(original);
    expect(readFileSync(join(r.root, f.path), 'utf8').trimEnd().split('\n').at(-1)).toBe(`<!-- ${marker} -->`);
    expect(r.s().ws.cells.find((c) => c.path === f.path)?.status).toBe('done');
  });

  it('s hides a partial for the session and :unskip shows it again', async () => {
    const r = await openStore(copyDemo());
    const f = await pick(r, 'almost_certainly_partial');
    const n = partialItems(r.s().ws, '', []).length;
    await r.press('s');
    expect(r.s().skipped).toEqual([f.path]);
    expect(r.s().message?.text).toBe(`skipped ${f.path} for this session`);
    expect(partialItems(r.s().ws, '', r.s().skipped)).toHaveLength(n - 1);
    await r.press(':', 'unskip', 'enter');
    expect(r.s().skipped).toEqual([]);
    expect(r.s().message?.text).toBe('1 skipped partial shown again');
  });
});

describe('store: the guards', () => {
  it('confirm refuses when the file changed after the dialog was shown', async () => {
    const r = await openStore(copyDemo());
    const f = await pick(r, 'almost_certainly_partial');
    await r.press('b');
    expect(r.s().dialog?.seen?.length).toBe(1);
    appendFileSync(join(r.root, f.path), '\nmore words from a writer nobody knew of\n');
    await r.press('y');
    expect(r.s().message?.tone).toBe('warn');
    expect(r.s().message?.text).toMatch(/^not done: /);
    expect(existsSync(join(r.root, f.path))).toBe(true);
    expect(backupsOf(r.root, f.path)).toEqual([]);
  });

  it('read-only refuses every writing key with the reason, and writes nothing', async () => {
    const r = await openStore(copyDemo(), { readonly: true });
    const f = await pick(r, 'almost_certainly_partial');
    for (const k of ['b', 'd', 'm', 'c', 'u']) {
      await r.press(k);
      expect(r.s().dialog).toBeNull();
      expect(r.s().message?.text).toMatch(/^read-only mode: ".+" is disabled \(started with --readonly\)$/);
    }
    expect(backupsOf(r.root, f.path)).toEqual([]);
  });
});

describe('store: checkpoint.md', () => {
  it('w on Sources rewrites checkpoint.md from the disk, keeping the old one', async () => {
    const r = await openStore(copyDemo());
    const before = readFileSync(join(r.root, 'checkpoint.md'), 'utf8');
    await r.press('4', 'w');
    const d = r.s().dialog!;
    expect(d.pending.type).toBe('checkpoint');
    expect(d.lines[0]).toBe('checkpoint.md → checkpoint.md.bak.<time of the write> (a copy of the old file)');
    await r.press('y');
    const after = readFileSync(join(r.root, 'checkpoint.md'), 'utf8');
    expect(after).not.toBe(before);
    const baks = backupsOf(r.root, 'checkpoint.md');
    expect(baks).toHaveLength(1);
    expect(readFileSync(join(r.root, baks[0]), 'utf8')).toBe(before);
    expect(r.s().message?.text).toMatch(/^wrote checkpoint\.md \(\d+ cells? changed\); the previous version is in checkpoint\.md\.bak\./);
  });
});

describe('store: refusals plan nothing (triage-planners.ts through feed)', () => {
  it('m on a suspect and u with an empty stack say why; no dialog, no backup', async () => {
    const r = await openStore(copyDemo());
    const items = partialItems(r.s().ws, '', []);
    const i = items.findIndex((x) => x.section === 'suspect');
    expect(i).toBeGreaterThanOrEqual(0);
    const f = items[i].file;
    await r.press('2', 'g', ...Array(i).fill('j'), 'm');
    expect(r.s().dialog).toBeNull();
    expect(r.s().message).toEqual({ text: `${f.path} already ends with its marker; back it up or redo it instead`, tone: 'warn' });
    await r.press('u');
    expect(r.s().message).toEqual({ text: 'nothing to undo: no backup was made in this session', tone: 'info' });
    expect(backupsOf(r.root, f.path)).toEqual([]);
  });

  it('a file being written is refused by b, d and m, and c leaves it alone (issue 8 item 1)', async () => {
    const r = await openStore(copyDemo());
    const f = await pick(r, 'almost_certainly_partial');
    r.live.setRunning(new Set([`${f.unit}/${f.step}`]));
    expect(r.s().ws.cells.find((c) => c.path === f.path)?.status).toBe('running');
    for (const k of ['b', 'd', 'm']) {
      await r.press(k);
      expect(r.s().dialog).toBeNull();
      expect(r.s().message).toEqual({ text: `${f.path} is being written: hands off until it stops (no back-up, keep or redo)`, tone: 'warn' });
    }
    await r.press('c');
    expect(r.s().dialog).toBeNull();
    expect(r.s().message?.text).toMatch(/ \(1 being written, left alone\)$/);
    expect(existsSync(join(r.root, f.path))).toBe(true);
    expect(backupsOf(r.root, f.path)).toEqual([]);
  });

  it('the journal keeps the redo queue and the undo stack of a confirmed d, and a second store reads them', async () => {
    const root = copyDemo();
    const config = await loadConfig(root);
    const sup = await openSupervisor({ root, config });
    try {
      const r = await openStore(root, { agents: { sup, config, flushMs: 10 } });
      const f = await pick(r, 'almost_certainly_partial');
      await r.press('d', 'y');
      const events = (await readJournal(root)).events;
      expect(events.filter((e) => e.type === 'redo_queued')).toMatchObject([{ unit: f.unit, step: f.step, path: f.path, backup: `${f.path}.bak.${STAMP}` }]);
      expect(events.filter((e) => e.type === 'undo_pushed')).toMatchObject([{ moves: [{ path: f.path, backup: `${f.path}.bak.${STAMP}` }] }]);
      expect(events.filter((e) => e.type === 'decision' && e.kind === 'redo')).toMatchObject([{ path: f.path, backupPath: `${f.path}.bak.${STAMP}` }]);
      await r.press('u', 'y');
      expect((await readJournal(root)).events.filter((e) => e.type === 'undo_popped')).toHaveLength(1);
    } finally {
      await sup.close({ cancel: true });
    }
  });
});
