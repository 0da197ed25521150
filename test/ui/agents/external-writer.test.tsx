import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createLiveWorkspace } from '../../../src/live/live-workspace.js';
import { createAppStore } from '../../../src/ui/store/store.js';
import { NO_COLOR_THEME } from '../../../src/text/theme.js';
import { closeStores, openStore, STAMP } from '../../helpers/store.js';
import { renderRoom, tick, unmountAll } from '../../helpers/ink.js';
import { PHASE_1_2, doneFile, summaries, tempDir, writeFiles } from '../../helpers/workspace.js';
import { holdOpen, killWriters, settle } from '../../helpers/writer.js';

// Issue 17 item 1, as the operator met it: a process checkroom did not launch has
// drafts/ch05-draft.md open for append and pauses. Before, the Partials view offered b / m /
// d, and `b` `y` moved the file: the writer finished into the .bak (with its marker) and the
// draft was gone. Now a live file is offered nothing destructive, `y` asks /proc again, and
// the writer's later bytes land in the original file.

afterEach(async () => {
  killWriters();
  await unmountAll();
  await closeStores();
});

const DRAFT = 'drafts/ch05-draft.md';
const HALF = '# ch05 draft\n\nThe writer paused in the middle of a';
const LATER = ' sentence.\n\n<!-- DRAFT_COMPLETE -->\n';

function workspace(): string {
  const root = tempDir('checkroom-external-writer-');
  writeFiles(root, {
    'checkroom.yaml': 'preset: book\nunits: { list: [ch05] }\nbatches: [{ id: 1, units: [ch05] }]\n',
    ...PHASE_1_2,
    'meta/chapter-summaries.md': summaries([]),
    [doneFile('ch05', 'research')[0]]: doneFile('ch05', 'research')[1],
    [DRAFT]: HALF,
  });
  settle(root);
  return root;
}

const backups = (root: string): string[] => readdirSync(join(root, 'drafts')).filter((f) => f.startsWith('ch05-draft.md.bak.'));
const heldBy = (pid: number): RegExp => new RegExp(`^drafts/ch05-draft\\.md is being written by pid ${pid} \\(sh\\) since \\d\\d:\\d\\d \\(not launched by checkroom\\): no back-up, keep or redo until it stops$`);

describe('a writer checkroom did not launch (store, keys fed)', () => {
  it('a quiet external appender: b, m and d offer nothing, b y moves nothing, and its later bytes land in the draft', async () => {
    const root = workspace();
    const w = await holdOpen(join(root, DRAFT));
    const r = await openStore(root);
    await r.press('2');
    for (const key of ['b', 'm', 'd']) {
      await r.press(key);
      expect(r.s().dialog).toBeNull();
      expect(r.s().message).toEqual({ text: expect.stringMatching(heldBy(w.pid)), tone: 'warn' });
    }
    expect(r.s().held.byPath.get(DRAFT)).toMatchObject({ kind: 'held', holders: [{ pid: w.pid, command: 'sh', ours: false }] });
    // The operator's `b` `y`: no dialog was opened, so `y` confirms nothing.
    await r.press('b', 'y');
    expect(r.s().dialog).toBeNull();
    expect(backups(root)).toEqual([]);
    await r.press('c');
    expect(r.s().message?.text).toBe('conservative strategy: no almost_certainly_partial file to back up (1 being written, left alone)');
    await w.finish(LATER);
    expect(backups(root)).toEqual([]);
    expect(readFileSync(join(root, DRAFT), 'utf8')).toBe(HALF + LATER);
  });

  it('a writer that opens the file after the dialog was shown: y asks /proc again, refuses, and the draft keeps every byte', async () => {
    const root = workspace();
    const r = await openStore(root);
    await r.press('2', 'b');
    expect(r.s().dialog).toMatchObject({ title: `Back up ${DRAFT}`, lines: [`${DRAFT} → ${DRAFT}.bak.${STAMP}`] });
    // Opened for append and quiet: neither size nor mtime changes.
    const w = await holdOpen(join(root, DRAFT));
    await r.press('y');
    expect(r.s().message).toEqual({ text: expect.stringMatching(new RegExp(`^not done: ${heldBy(w.pid).source.slice(1)}`)), tone: 'warn' });
    expect(backups(root)).toEqual([]);
    await w.finish(LATER);
    expect(readFileSync(join(root, DRAFT), 'utf8')).toBe(HALF + LATER);
    expect(existsSync(join(root, `${DRAFT}.bak.${STAMP}`))).toBe(false);
  });

  it('a file another process only reads is not live: b y backs it up', async () => {
    const root = workspace();
    await holdOpen(join(root, DRAFT), 'read');
    const r = await openStore(root);
    await r.press('2', 'b', 'y');
    expect(backups(root)).toEqual([`ch05-draft.md.bak.${STAMP}`]);
    expect(existsSync(join(root, DRAFT))).toBe(false);
    expect(r.s().held.byPath.size).toBe(0);
  });

  it('a file written within the quiet window offers nothing until it is quiet', async () => {
    const root = workspace();
    writeFiles(root, { [DRAFT]: `${HALF} little more` });
    const r = await openStore(root);
    await r.press('2', 'b');
    expect(r.s().dialog).toBeNull();
    expect(r.s().message?.text).toMatch(/^drafts\/ch05-draft\.md changed [0-9.]+ s ago, within the quiet window \(3 s\) \(a writer may be pausing, here or on another host\): no back-up, keep or redo until it stops$/);
    settle(root);
    await r.press('b');
    expect(r.s().dialog?.title).toBe(`Back up ${DRAFT}`);
  });
});

describe('triage.quiet_window in checkroom.yaml', () => {
  it('sets the window: 0 offers a file written a moment ago; 10m refuses one five minutes old', async () => {
    const root = workspace();
    writeFiles(root, { [DRAFT]: `${HALF} little more` });
    const yaml = readFileSync(join(root, 'checkroom.yaml'), 'utf8');
    writeFiles(root, { 'checkroom.yaml': `${yaml}triage: { quiet_window: 0 }\n` });
    const r = await openStore(root);
    expect(r.s().ws.pipeline.quietWindowMs).toBe(0);
    await r.press('2', 'b');
    expect(r.s().dialog?.title).toBe(`Back up ${DRAFT}`);
    await r.press('n');
    // Five minutes old, and the window is ten: still live.
    writeFiles(root, { 'checkroom.yaml': `${yaml}triage: { quiet_window: 10m }\n` });
    settle(root, 300_000);
    const r2 = await openStore(root);
    expect(r2.s().ws.pipeline.quietWindowMs).toBe(600_000);
    await r2.press('2', 'b');
    expect(r2.s().dialog).toBeNull();
    expect(r2.s().message?.text).toMatch(/^drafts\/ch05-draft\.md changed (29\d|30\d)(\.\d)? s ago, within the quiet window \(600 s\)/);
  });
});

describe('a writer checkroom did not launch (the Partials view, 80×24)', () => {
  it('says who writes the file, since when and that checkroom did not launch it, and offers no b, m or d', async () => {
    const root = workspace();
    const w = await holdOpen(join(root, DRAFT));
    const live = await createLiveWorkspace(root, { watch: false });
    const store = createAppStore({ live, now: () => new Date(2026, 10, 30, 5, 12, 0) });
    const { frame, press } = await renderRoom(store, live, NO_COLOR_THEME, 24, 80);
    await press('2');
    await tick(50);
    const f = frame();
    expect(f).toMatch(/› written by pid \d+\s+\d+\s+drafts\/ch05-draft\.md/);
    expect(f).toMatch(new RegExp(`── ch05 draft: being written by pid ${w.pid} \\(sh\\) since \\d\\d:\\d\\d\\n`));
    expect(f).toContain('   (not launched by checkroom): no back-up, keep or redo until it stops');
    expect(f).not.toMatch(/\bb back up\b|\bm keep\b|\bd redo\b/);
    expect(f).toContain('s skip');
    // Once the writer is done and the file quiet, the keys are offered again.
    await w.finish(LATER.replace('<!-- DRAFT_COMPLETE -->\n', ''));
    settle(root);
    await press('r');
    await tick(1_100);
    await press('j', 'k');
    await tick(50);
    expect(frame()).toMatch(/b back up.*m keep.*d redo/s);
  });

  it('says when processes of other users could not be checked (not root)', async () => {
    const root = workspace();
    const live = await createLiveWorkspace(root, { watch: false });
    const store = createAppStore({ live, now: () => new Date(2026, 10, 30, 5, 12, 0) });
    const { frame, press } = await renderRoom(store, live, NO_COLOR_THEME, 24, 100);
    await press('2');
    await tick(50);
    expect(frame()).not.toContain('could not check');
    // What held-feed.ts records when /proc/PID/fd of other users answers EACCES (holders.test.ts proves that part as nobody).
    store.setState({ held: { byPath: new Map(), unchecked: 3 } });
    await tick(50);
    expect(frame()).toContain('1 half-product · 0 suspicious · could not check 3 processes of other users (not root)');
  });
});
