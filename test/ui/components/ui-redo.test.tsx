import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import chalk from 'chalk';
import { createLiveWorkspace } from '../../../src/live/live-workspace.js';
import { createAppStore } from '../../../src/ui/store/store.js';
import { NO_COLOR_THEME } from '../../../src/text/theme.js';
import { renderRoom, tick, unmountAll, withoutReverse } from '../../helpers/ink.js';
import { copyDemo } from '../../helpers/workspace.js';
import { settle } from '../../helpers/settle.js';

// Redo from here on screen at 80×24 under NO_COLOR (docs/redo.md): the preview dialog with
// every file and its size, then the backups panel's side-by-side diff of the redone draft
// against its backup; --ascii draws the gutter in ASCII; too narrow, the panel stays unified.

const squash = (s: string) => s.replace(/\s+/g, '');

async function mount(dir: string, o: { ascii?: boolean; columns?: number } = {}) {
  chalk.level = 3;
  const live = await createLiveWorkspace(dir, { watch: false });
  const store = createAppStore({ live, ascii: o.ascii, now: () => new Date(2026, 10, 30, 5, 12, 0) });
  const { raw, press } = await renderRoom(store, live, NO_COLOR_THEME, 24, o.columns ?? 80);
  const frame = () => {
    const f = raw();
    expect(withoutReverse(f)).not.toContain('\u001b');
    expect(f.split('\n').length).toBeLessThan(24);
    return stripVTControlCharacters(f);
  };
  const waitFor = async (text: string, timeout = 20_000) => {
    const t0 = Date.now();
    while (!squash(frame()).includes(squash(text))) {
      if (Date.now() - t0 > timeout) throw new Error(`timed out waiting for ${text}; frame:\n${frame()}`);
      await tick(20);
    }
  };
  const idle = () => store.getState().idle();
  return { frame, press, waitFor, idle, store };
}

afterEach(unmountAll);

/** Redo ch03's draft, then a new draft written in its place (as the redone agent would). */
async function redone(m: Awaited<ReturnType<typeof mount>>, dir: string): Promise<string> {
  const old = readFileSync(join(dir, 'drafts/ch03-draft.md'), 'utf8');
  await m.press(':', ...'redo ch03/draft', '\r');
  await m.waitFor('Redo from ch03 draft: 9 cells, 4 files');
  const f = m.frame();
  expect(squash(f)).toContain(squash(`1. ch03 draft: drafts/ch03-draft.md ${Buffer.byteLength(old)} B, has its marker`));
  // Longer than the dialog (a narrow terminal): j scrolls to the last cell.
  if (f.includes('j/k: scroll')) await m.press(...Array(12).fill('j'));
  await m.waitFor('9. ch03 html: no file yet');
  await m.press('y');
  await m.idle();
  const lines = old.split('\n');
  lines[2] = 'A REWRITTEN THIRD LINE';
  writeFileSync(join(dir, 'drafts/ch03-draft.md'), lines.join('\n'));
  settle(dir);
  return lines[2];
}

describe('redo from here on screen', () => {
  it('80×24: the preview lists every cell and file; afterwards s shows the draft against its backup side by side', { timeout: 90_000 }, async () => {
    const dir = copyDemo();
    const m = await mount(dir);
    await redone(m, dir);
    await m.press('r');
    await m.idle();
    await m.press('1', 'g', 'j', 'j', 'l', 'B');
    await m.waitFor('Backups of drafts/ch03-draft.md 1 found');
    await m.press('s');
    await m.waitFor('the current file (+)');
    const f = m.frame();
    expect(f).toContain('│');
    expect(f).toMatch(/-.*│ \+A REWRITTEN THIRD LINE/);
    if (process.env.REDO_FRAMES) writeFileSync(process.env.REDO_FRAMES, f);
    // s again: unified.
    await m.press('s');
    await m.waitFor('diff: - the backup, + the current file');
    expect(m.frame()).toContain('+A REWRITTEN THIRD LINE');
  });

  it('--ascii: the gutter is ASCII', { timeout: 90_000 }, async () => {
    const dir = copyDemo();
    const m = await mount(dir, { ascii: true });
    await redone(m, dir);
    await m.press('r');
    await m.idle();
    await m.press('1', 'g', 'j', 'j', 'l', 'B');
    await m.waitFor('Backups of drafts/ch03-draft.md 1 found');
    await m.press('s');
    await m.waitFor('the current file (+)');
    expect(m.frame()).toMatch(/-.* \| \+A REWRITTEN THIRD LINE/);
    expect(m.frame()).not.toContain('│');
  });

  it('50 columns: the preview scrolls with j; too narrow for side by side, unified with a note', { timeout: 90_000 }, async () => {
    const dir2 = copyDemo();
    const n = await mount(dir2, { columns: 50 });
    await redone(n, dir2);
    await n.press('r');
    await n.idle();
    await n.press('1', 'g', 'j', 'j', 'l', 'B');
    await n.waitFor('Backups of');
    await n.press('s');
    await n.waitFor('unified, side by side needs 51 cols');
    await n.waitFor('+A REWRITTEN THIRD LINE');
  });
});
