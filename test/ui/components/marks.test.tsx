import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLiveWorkspace } from '../../../src/live/live-workspace.js';
import { createAppStore } from '../../../src/ui/store/store.js';
import { NO_COLOR_THEME } from '../../../src/text/theme.js';
import { setOutputCharset, toCharsetInPlace } from '../../../src/text/charset.js';
import { renderRoom, tick, unmountAll } from '../../helpers/ink.js';
import { PINNED_NOW, STAMP } from '../../helpers/store.js';
import { PHASE_1_2, doneFile, summaries, tempDir, writeFiles } from '../../helpers/workspace.js';
import { holdOpen, killWriters, settle } from '../../helpers/writer.js';

// Multi-select (issue 21 item 3), as the operator sees it at 80×24 under NO_COLOR: space
// marks and moves down, V marks what the filter shows, marks stay on their rows through a
// live re-sort, and b on three marked half-products opens one preview in which the file a
// real process holds open for writing is refused while the others are backed up.

afterEach(async () => {
  killWriters();
  await unmountAll();
});

const UNITS = ['ch01', 'ch02', 'ch03'];
const draft = (u: string): string => `drafts/${u}-draft.md`;
const HALF = (u: string): string => `# ${u} draft\n\nThe writer stopped in the middle of a`;

/** Three chapters researched; with `drafts`, each has a half-written draft (a half-product). */
function workspace(drafts: boolean): string {
  const root = tempDir('checkroom-marks-');
  const files: Record<string, string> = {
    'checkroom.yaml': `preset: book\nunits: { list: [${UNITS.join(', ')}] }\nbatches: [{ id: 1, units: [${UNITS.join(', ')}] }]\n`,
    ...PHASE_1_2,
    'meta/chapter-summaries.md': summaries([]),
  };
  for (const u of UNITS) {
    const [p, text] = doneFile(u, 'research');
    files[p] = text;
    if (drafts) files[draft(u)] = HALF(u);
  }
  writeFiles(root, files);
  // The drafts' directory is there (and watched) before any draft is.
  mkdirSync(join(root, 'drafts'), { recursive: true });
  // Past the quiet window: a file changed just now is live, and refused.
  settle(root);
  return root;
}

async function mount(root: string, watch = false, ascii = false) {
  const live = await createLiveWorkspace(root, { watch });
  const store = createAppStore({ live, now: PINNED_NOW, ascii });
  const room = await renderRoom(store, live, NO_COLOR_THEME, 24, 80);
  const waitFor = async (ok: () => boolean, what: string): Promise<void> => {
    for (let i = 0; !ok(); i++) {
      if (i > 500) throw new Error(`timed out waiting for ${what}; frame:\n${room.frame()}`);
      await tick(20);
    }
  };
  const idle = async (): Promise<void> => {
    await tick(30);
    await store.getState().idle();
    await tick(30);
  };
  return { ...room, store, waitFor, idle };
}

/** The list row that names `text`, as drawn. */
const rowOf = (frame: string, text: string): string => frame.split('\n').find((l) => l.includes(text)) ?? '';
const backups = (root: string, u: string): string[] => readdirSync(join(root, 'drafts')).filter((f) => f.startsWith(`${u}-draft.md.bak.`));

describe('marks in the control room (80×24, NO_COLOR)', () => {
  it('space marks the row and moves down, the mark is a * column, the footer says N marked and what acts; U clears', async () => {
    const m = await mount(workspace(true));
    await m.press('2', ' ');
    let f = m.frame();
    expect(rowOf(f, draft('ch01'))).toMatch(/^ \*/);
    expect(rowOf(f, draft('ch02'))).toMatch(/^› [^*]/);
    expect(f).toContain('1 marked: b d m s act on them');
    await m.press(' ');
    f = m.frame();
    expect(rowOf(f, draft('ch02'))).toMatch(/^ \*/);
    expect(rowOf(f, draft('ch03'))).toMatch(/^› [^*]/);
    expect(f).toContain('2 marked: b d m s act on them');
    // space on a marked row unmarks it.
    await m.press('k', ' ');
    expect(rowOf(m.frame(), draft('ch02'))).toMatch(/^ {2}[^*]/);
    expect(m.store.getState().marks.partials).toEqual([draft('ch01')]);
    await m.press('U');
    f = m.frame();
    expect(m.store.getState().marks.partials).toEqual([]);
    expect(f).not.toContain('marked:');
    expect(f.split('\n').filter((l) => /^.\*/.test(l))).toEqual([]);
  });

  it('under --ascii and an ASCII terminal (LANG=C) a marked row reads >* under the cursor, * elsewhere', async () => {
    setOutputCharset('ascii');
    try {
      const m = await mount(workspace(true), false, true);
      await m.press('2', ' ', ' ', 'k');
      const lines = toCharsetInPlace(m.frame(), 'ascii').split('\n');
      const row = (text: string): string => lines.find((l) => l.includes(text)) ?? '';
      expect(row(draft('ch01'))).toMatch(/^ \*almost_certainly_partial/);
      expect(row(draft('ch02'))).toMatch(/^>\*almost_certainly_partial/);
      expect(row(draft('ch03'))).toMatch(/^ {2}almost_certainly_partial/);
      expect(lines.filter((l) => /[^\x20-\x7e]/.test(l))).toEqual([]);
      expect(lines.join('\n')).toContain('2 marked: b d m s act on them');
    } finally {
      setOutputCharset('unicode');
    }
  });

  it('V marks only the rows the / filter shows; the marks stay when the filter is cleared', async () => {
    const m = await mount(workspace(true));
    await m.press('2', '/', 'c', 'h', '0', '2', '\r', 'V');
    expect(m.frame()).toContain('1 marked (the 1 row the filter shows)');
    await m.press('\u001b');
    const f = m.frame();
    expect(rowOf(f, draft('ch02'))).toMatch(/^.\*/);
    expect(rowOf(f, draft('ch01'))).toMatch(/^.[^*]/);
    expect(rowOf(f, draft('ch03'))).toMatch(/^.[^*]/);
    expect(f).toContain('1 marked: b d m s act on them');
    expect(m.store.getState().marks.partials).toEqual([draft('ch02')]);
  });

  it('a mark stays on its step when a live change re-sorts the Plan, not on the row now at its index', async () => {
    const root = workspace(false);
    const m = await mount(root, true);
    await m.press('3', 'G', ' ');
    expect(m.frame().split('\n').filter((l) => /^.\*/.test(l))).toEqual([expect.stringContaining('ch03 draft')]);
    writeFileSync(join(root, draft('ch03')), HALF('ch03'));
    await m.waitFor(() => rowOf(m.frame(), 'ch03 draft').includes('P2'), 'the live change');
    const f = m.frame();
    expect(rowOf(f, 'ch03 draft')).toMatch(/^.\*P2 ch03 draft/);
    // Index-kept marks would now sit on ch02, the row at the old index.
    expect(rowOf(f, 'ch02 draft')).toMatch(/^ {2}P3/);
    expect(f.split('\n').filter((l) => /^.\*/.test(l))).toHaveLength(1);
    expect(m.store.getState().marks.plan).toEqual(['cell:ch03/draft']);
  });

  it('b on three marked half-products: one preview; the one a real process holds open for writing is refused, the two others are backed up', async () => {
    const root = workspace(true);
    const w = await holdOpen(join(root, draft('ch02')));
    const m = await mount(root);
    await m.press('2', 'V', 'b');
    await m.idle();
    const f = m.frame();
    expect(f).toContain('Back up 2 marked files (1 refused)');
    expect(f).toContain(`${draft('ch01')} → ${draft('ch01')}.bak.${STAMP}`);
    expect(f).toContain(`${draft('ch03')} → ${draft('ch03')}.bak.${STAMP}`);
    // The preview wraps at 80 columns: its lines are read from the frame without line breaks.
    expect(f.replace(/\s+/g, ' ')).toMatch(new RegExp(`refused: drafts/ch02-draft\\.md is being written by pid ${w.pid} \\(sh\\) since \\d\\d:\\d\\d \\(not launched by checkroom\\): no back-up, keep or redo until it stops`));
    // One dialog: the three are in it, nothing has moved yet.
    expect(m.store.getState().dialog?.lines).toHaveLength(3);
    expect(UNITS.flatMap((u) => backups(root, u))).toEqual([]);
    await m.press('y');
    await m.idle();
    expect(backups(root, 'ch01')).toEqual([`ch01-draft.md.bak.${STAMP}`]);
    expect(backups(root, 'ch03')).toEqual([`ch03-draft.md.bak.${STAMP}`]);
    expect(backups(root, 'ch02')).toEqual([]);
    expect(readFileSync(join(root, draft('ch02')), 'utf8')).toBe(HALF('ch02'));
    const s = m.store.getState();
    expect(s.message?.text).toMatch(new RegExp(`^backed up ${draft('ch01')}, ${draft('ch03')}; refused ${draft('ch02')} \\(is being written by pid ${w.pid}`));
    // One undo group for the two, and the marks went with the confirmed dialog.
    expect(s.undo.at(-1)?.moves.map((x) => x.path)).toEqual([draft('ch01'), draft('ch03')]);
    expect(s.marks.partials).toEqual([]);
    // The writer's last bytes land in its file, still under its name.
    await w.finish(' sentence.');
    expect(readFileSync(join(root, draft('ch02')), 'utf8')).toBe(`${HALF('ch02')} sentence.`);
  });
});
