import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createLiveWorkspace } from '../../../src/live/live-workspace.js';
import { createAppStore } from '../../../src/ui/store/store.js';
import { checkpointDiff } from '../../../src/ui/views/checkpoint-diff.js';
import { COLOR_THEME } from '../../../src/text/theme.js';
import { renderRoom, tick, unmountAll } from '../../helpers/ink.js';
import { copyDemo } from '../../helpers/workspace.js';

// The Partials and Sources actions on real copies of the demo workspace: each shows its
// confirmation (exact files and names), changes nothing on `n`, and on `y` changes the
// disk exactly as announced. The clock is pinned so backup names are known.

const STAMP = '20261130-051200';
const squash = (s: string) => s.replace(/\s+/g, '');

async function mount(dir: string, o: { readonly?: boolean } = {}) {
  const live = await createLiveWorkspace(dir, { watch: false });
  const store = createAppStore({ live, readonly: o.readonly, now: () => new Date(2026, 10, 30, 5, 12, 0) });
  const { frame, press } = await renderRoom(store, live, COLOR_THEME, 24, 80);
  // Confirmation lines wrap at 80 columns; `flat` (and `squash` on the expected text) ignore
  // whitespace so a wrapped name still matches.
  const flat = () => squash(frame());
  const waitFor = async (text: string | RegExp, timeout = 5000) => {
    const t0 = Date.now();
    while (!(typeof text === 'string' ? flat().includes(squash(text)) : text.test(frame()))) {
      if (Date.now() - t0 > timeout) throw new Error(`timed out waiting for ${text}; frame:\n${frame()}`);
      await tick(20);
    }
  };
  const idle = async () => {
    await tick(30);
    await store.getState().idle();
    await tick(30);
  };
  return { frame, flat, press, waitFor, idle, store, ws: () => store.getState().ws };
}

afterEach(async () => {
  await unmountAll();
});

/** Open Partials and put the cursor on the first partial with this verdict. */
async function selectPartial(m: Awaited<ReturnType<typeof mount>>, verdict: string) {
  const idx = m.ws().partials.findIndex((p) => p.verdict === verdict);
  expect(idx).toBeGreaterThanOrEqual(0);
  await m.press('2', 'g', ...Array(idx).fill('j'));
  const p = m.ws().partials[idx];
  expect(m.frame()).toMatch(new RegExp(`› ${verdict}\\s+${p.chars}\\s+${p.path.replace(/[.]/g, '\\.')}`));
  return p;
}

const backupsOf = (root: string, rel: string) => readdirSync(join(root, dirname(rel))).filter((f) => f.startsWith(`${rel.split('/').pop()}.bak.`));

describe('partials actions', () => {
  it('backs a file up after a confirmation naming the exact backup, and undoes it', async () => {
    const m = await mount(copyDemo());
    const root = m.ws().root;
    const p = await selectPartial(m, 'almost_certainly_partial');
    const original = readFileSync(join(root, p.path), 'utf8');
    await m.press('b');
    await m.waitFor(`${p.path} → ${p.path}.bak.${STAMP}`);
    expect(m.frame()).toContain('Confirm: Back up');
    expect(m.frame()).toContain('y/enter confirm · n/esc cancel');
    // Cancel first: nothing moves.
    await m.press('n');
    expect(m.frame()).toContain('cancelled: nothing was changed');
    expect(existsSync(join(root, p.path))).toBe(true);
    expect(backupsOf(root, p.path)).toEqual([]);
    // Then confirm.
    await m.press('b');
    await m.waitFor('Confirm:');
    await m.press('y');
    await m.idle();
    expect(existsSync(join(root, p.path))).toBe(false);
    expect(readFileSync(join(root, `${p.path}.bak.${STAMP}`), 'utf8')).toBe(original);
    expect(m.frame()).toContain(`${p.path} → ….bak.${STAMP} (u undoes)`);
    expect(m.frame()).not.toContain(`› almost_certainly_partial`);
    // Undo: confirm, and the file is back under its name, the backup gone.
    await m.press('u');
    await m.waitFor(`${p.path}.bak.${STAMP} → ${p.path}`);
    await m.press('\r');
    await m.idle();
    expect(readFileSync(join(root, p.path), 'utf8')).toBe(original);
    expect(backupsOf(root, p.path)).toEqual([]);
    expect(m.frame()).toContain(`restored ${p.path}`);
    await m.press('u');
    expect(m.frame()).toContain('nothing to undo');
  });

  it('keep appends the marker as the last line, after a backup copy', async () => {
    const m = await mount(copyDemo());
    const root = m.ws().root;
    const p = await selectPartial(m, 'maybe_complete');
    const marker = m.ws().pipeline.steps.find((s) => s.id === p.step)!.marker!;
    const before = readFileSync(join(root, p.path), 'utf8');
    await m.press('m');
    await m.waitFor(`append "<!-- ${marker} -->" as the last line`);
    expect(m.flat()).toContain(squash(`${p.path} → ${p.path}.bak.${STAMP} (a copy; the file stays)`));
    await m.press('\u001b');
    expect(readFileSync(join(root, p.path), 'utf8')).toBe(before);
    await m.press('m');
    await m.waitFor('Confirm:');
    await m.press('y');
    await m.idle();
    const after = readFileSync(join(root, p.path), 'utf8');
    expect(after.trimEnd().split('\n').at(-1)).toBe(`<!-- ${marker} -->`);
    expect(after.startsWith(before)).toBe(true);
    expect(readFileSync(join(root, `${p.path}.bak.${STAMP}`), 'utf8')).toBe(before);
    expect(m.ws().partials.some((q) => q.path === p.path)).toBe(false);
  });

  it('redo backs up and queues the step, shown as queued in the Plan view', async () => {
    const m = await mount(copyDemo());
    const root = m.ws().root;
    const p = await selectPartial(m, 'truncated');
    await m.press('d');
    await m.waitFor(`queue ${p.unit} ${p.step} for relaunch`);
    expect(m.flat()).toContain(squash(`${p.path} → ${p.path}.bak.${STAMP}`));
    await m.press('y');
    await m.idle();
    expect(existsSync(join(root, p.path))).toBe(false);
    expect(existsSync(join(root, `${p.path}.bak.${STAMP}`))).toBe(true);
    expect(m.store.getState().redoQueue.map((r) => `${r.unit}/${r.step}`)).toEqual([`${p.unit}/${p.step}`]);
    await m.press('3');
    expect(m.frame()).toMatch(new RegExp(`Q ${p.unit} ${p.step}\\s+queued redo\\s+backed up to`));
    expect(m.frame()).toContain('1 queued for relaunch');
  });

  it('skip hides a partial for this session without touching the disk', async () => {
    const m = await mount(copyDemo());
    const p = await selectPartial(m, 'truncated');
    await m.press('s');
    expect(m.frame()).toContain('1 skipped this session');
    expect(m.frame()).not.toContain(`  ${p.path}`);
    expect(existsSync(join(m.ws().root, p.path))).toBe(true);
  });

  it('the conservative strategy backs up every almost_certainly_partial at once', async () => {
    const m = await mount(copyDemo());
    const root = m.ws().root;
    const targets = m.ws().partials.filter((p) => p.verdict === 'almost_certainly_partial');
    const others = m.ws().partials.filter((p) => p.verdict !== 'almost_certainly_partial');
    expect(targets.length).toBeGreaterThan(0);
    await m.press('2', 'c');
    await m.waitFor('Conservative strategy');
    for (const t of targets) expect(m.flat()).toContain(squash(`${t.path} → ${t.path}.bak.${STAMP}`));
    for (const o of others) expect(m.flat()).not.toContain(squash(`${o.path} →`));
    await m.press('y');
    await m.idle();
    for (const t of targets) {
      expect(existsSync(join(root, t.path))).toBe(false);
      expect(existsSync(join(root, `${t.path}.bak.${STAMP}`))).toBe(true);
    }
    for (const o of others) expect(existsSync(join(root, o.path))).toBe(true);
    expect(m.store.getState().redoQueue).toHaveLength(targets.length);
  });
});

describe('sources: rewrite checkpoint.md', () => {
  it('lists discrepancies, summarises the cells that will change, and writes the file on confirm', async () => {
    const m = await mount(copyDemo());
    const root = m.ws().root;
    const d = m.ws().discrepancies[0];
    await m.press('4');
    expect(m.frame()).toContain(`${m.ws().discrepancies.length} discrepancies`);
    expect(m.frame()).toMatch(new RegExp(`› ${d.unit} ${d.step}\\s+\\S+ ${d.checkpoint.replace('_', '-')}`));
    const diff = await checkpointDiff(root);
    const before = readFileSync(join(root, 'checkpoint.md'), 'utf8');
    await m.press('w');
    await m.waitFor(`${diff.changes.length} cells change`);
    expect(m.frame()).toContain(`cells change: ${diff.changes[0].key}`);
    // Issue 17 item 2: the whole line diff, not only the cells (it listed cells only).
    expect(diff.lines[0]).toMatch(/^@@ -\d+,\d+ \+\d+,\d+ @@$/);
    expect(m.frame()).toContain(`  ${diff.lines[0]}`);
    expect(m.frame()).toMatch(/^ {4}\+\S/m);
    expect(readFileSync(join(root, 'checkpoint.md'), 'utf8')).toBe(before);
    await m.press('y');
    await m.idle();
    const after = readFileSync(join(root, 'checkpoint.md'), 'utf8');
    expect(after).not.toBe(before);
    expect(m.frame()).toContain(`wrote checkpoint.md (${diff.changes.length} cells changed)`);
    const copies = readdirSync(root).filter((f) => f.startsWith('checkpoint.md.bak.'));
    expect(copies).toHaveLength(1);
    expect(readFileSync(join(root, copies[0]), 'utf8')).toBe(before);
    // The sources now agree on every claim the checkpoint holds.
    expect((await checkpointDiff(root)).changes).toEqual([]);
  });

  it(':write-checkpoint runs the same confirmed action', async () => {
    const m = await mount(copyDemo());
    await m.press(':', ...'write-checkpoint', '\r');
    await m.waitFor(/Confirm: Rewrite checkpoint\.md: \d+ cells change/);
    await m.press('n');
    expect(m.frame()).toContain('cancelled');
  });
});

describe('read-only mode', () => {
  it('says so in the header, hides writing actions from the footer, and refuses them', async () => {
    const m = await mount(copyDemo(), { readonly: true });
    const root = m.ws().root;
    const before = readFileSync(join(root, 'checkpoint.md'), 'utf8');
    expect(m.frame()).toContain('READ-ONLY');
    await m.press('2');
    const footer = m.frame().trimEnd().split('\n').at(-1)!;
    expect(footer).toContain('s skip');
    expect(footer).not.toContain('b back up');
    expect(footer).not.toContain('c conservative');
    await m.press('b');
    expect(m.frame()).toContain('read-only mode: "back up" is disabled');
    expect(m.frame()).not.toContain('Confirm:');
    await m.press('c', 'm', 'd', 'u');
    expect(m.frame()).not.toContain('Confirm:');
    await m.press('4', 'w');
    expect(m.frame()).toContain('read-only mode: "write checkpoint" is disabled');
    await m.press(':', ...'write-checkpoint', '\r');
    expect(m.frame()).toContain('read-only mode');
    await m.idle();
    for (const p of m.ws().partials) expect(existsSync(join(root, p.path))).toBe(true);
    expect(readFileSync(join(root, 'checkpoint.md'), 'utf8')).toBe(before);
    expect(readdirSync(root).filter((f) => f.includes('.bak.'))).toEqual([]);
  });
});
