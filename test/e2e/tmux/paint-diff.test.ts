import { afterEach, describe, expect, it } from 'vitest';
import { appendFileSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { createElement, useEffect, useState, type ReactElement } from 'react';
import { anchoredStdout } from '../../../src/ui/term/anchored-stdout.js';
import { TermGrid } from '../../../src/ui/term/grid.js';
import { createLiveWorkspace, type LiveWorkspace } from '../../../src/live/live-workspace.js';
import { createAppStore, disposeStore, type AppStore } from '../../../src/ui/store/store.js';
import { COLOR_THEME, NO_COLOR_THEME, type Theme } from '../../../src/text/theme.js';
import { hasTmux, TmuxSession } from '../../helpers/tmux.js';
import { copyDemo, tempDir } from '../../helpers/workspace.js';

// Issue 10 item 5: the control room writes only the cells that changed. Real frames from Ink
// go through the writer into a byte stream; tmux, a terminal emulator of its own, plays the
// stream back, and its screen (with colours: capture-pane -e) must equal the screen a full
// redraw of the same frame gives. The bytes of one update are counted on the same stream.

// Ink draws nothing until exit where it sees CI (src/ui/entry/load.ts): hidden while it loads, so
// nothing that imports ink is imported statically here.
// Colour on, as on the operator's terminal (chalk, loaded with ink, reads it once).
const ci = process.env.CI;
delete process.env.CI;
process.env.FORCE_COLOR = '3';
const { render, Box, Text } = await import('ink');
const { ControlRoom } = await import('../../../components/ControlRoom.js');
if (ci !== undefined) process.env.CI = ci;

class Term extends Writable {
  isTTY = true;
  text = '';
  constructor(
    public columns = 80,
    public rows = 24,
  ) {
    super();
  }
  _write(chunk: Buffer, _enc: string, cb: () => void): void {
    this.text += chunk.toString('utf8');
    cb();
  }
}
const stdin = () => Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => undefined, ref: () => undefined, unref: () => undefined });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until nothing more is written for a while (Ink's throttle, the live model's batches). */
async function settle(t: Term): Promise<void> {
  for (let last = -1; last !== t.text.length;) {
    last = t.text.length;
    await sleep(250);
  }
}

const mount = (el: ReactElement, stdout: NodeJS.WriteStream, incremental: boolean) =>
  render(el, { stdout, stdin: stdin() as unknown as NodeJS.ReadStream, exitOnCtrlC: false, patchConsole: false, incrementalRendering: incremental });

/** What a terminal of this size shows after these bytes, colours included, as tmux renders it. */
async function screenOf(bytes: string, cols = 80, rows = 24): Promise<string> {
  const dir = tempDir('checkroom-paint-');
  writeFileSync(join(dir, 'bytes'), bytes);
  const t = new TmuxSession(`sh -c 'cat bytes; touch done; sleep 600'`, { cols, rows, cwd: dir });
  try {
    for (let i = 0; i < 300 && !existsSync(join(dir, 'done')); i++) await sleep(100);
    expect(existsSync(join(dir, 'done'))).toBe(true);
    return t.tmux('capture-pane', '-p', '-e', '-t', 'cr');
  } finally {
    t.kill();
  }
}

/** A full redraw of what Ink draws now: a fresh, non-incremental mount on a cleared screen. */
async function fullRedraw(el: ReactElement, cols = 80, rows = 24): Promise<string> {
  const t = new Term(cols, rows);
  const app = mount(el, t as unknown as NodeJS.WriteStream, false);
  await settle(t);
  app.unmount();
  // The frame only: the cursor shown again at unmount is not part of it; a last newline
  // would scroll a full screen.
  const frame = t.text.replace(/\u001b\[\?25[hl]/g, '').replace(/\n$/, '');
  return `\u001b[H\u001b[2J${frame}`;
}

const opened: { store: AppStore; live: LiveWorkspace }[] = [];
afterEach(async () => {
  for (const o of opened.splice(0)) {
    disposeStore(o.store);
    await o.live.close();
  }
});

describe.skipIf(!hasTmux())('the cell-diff writer on real control-room frames (tmux 80×24)', () => {
  for (const [name, theme] of [
    ['colour', COLOR_THEME],
    ['NO_COLOR', NO_COLOR_THEME],
  ] as [string, Theme][]) {
    it(`a marker turning one cell done writes a small diff, and the screen equals a full redraw (${name})`, async () => {
      const dir = copyDemo();
      const live = await createLiveWorkspace(dir, { watch: true });
      const store = createAppStore({ live });
      opened.push({ store, live });
      const el = createElement(ControlRoom, { store, theme });
      const term = new Term();
      const app = mount(el, anchoredStdout(term as unknown as NodeJS.WriteStream), true);
      await settle(term);
      const done = () => store.getState().ws.cells.filter((c) => c.status === 'done').length;
      const before = done();
      const start = term.text.length;
      appendFileSync(join(dir, 'research/ch09-research.md'), '\n<!-- RESEARCH_COMPLETE -->\n');
      for (let i = 0; i < 300 && done() === before; i++) await sleep(50);
      expect(done()).toBe(before + 1);
      await settle(term);
      const update = Buffer.byteLength(term.text.slice(start));
      app.unmount();
      const ours = term.text.replace(/\u001b\[\?25[hl]/g, '');
      expect(/\u001b\[[0-9;]*3[0-9]m/.test(ours)).toBe(theme === COLOR_THEME);
      // The count, the tallies, the phase bar, the scan time and the cell: a few short runs.
      expect(update).toBeGreaterThan(0);
      expect(update).toBeLessThanOrEqual(300);
      expect(await screenOf(ours)).toBe(await screenOf(await fullRedraw(el)));
    });
  }
});

describe.skipIf(!hasTmux())('the cell-diff writer when the terminal only gets narrower (review: the screen stayed garbled)', () => {
  for (const [from, to] of [
    [90, 80],
    [81, 80],
  ] as const) {
    it(`${from} → ${to} columns at 24 rows: the screen equals a full redraw at ${to}`, async () => {
      const dir = copyDemo();
      const live = await createLiveWorkspace(dir, { watch: false });
      const store = createAppStore({ live });
      opened.push({ store, live });
      store.getState().feed({ ch: '2', name: null, ctrl: false, shift: false });
      const el = createElement(ControlRoom, { store, theme: NO_COLOR_THEME });
      const term = new Term(from, 24);
      const app = mount(el, anchoredStdout(term as unknown as NodeJS.WriteStream), true);
      await settle(term);
      // Ink's first frame after a shrink is still laid out for the old width: its lines are
      // wider than the terminal until React lays them out again.
      term.columns = to;
      term.emit('resize');
      await settle(term);
      app.unmount();
      const ours = term.text.replace(/\u001b\[\?25[hl]/g, '');
      expect(await screenOf(ours, to, 24)).toBe(await screenOf(await fullRedraw(el, to, 24), to, 24));
    });
  }
});

/** Lines that change on each step; `steps` drives them from outside. */
function Lines({ steps }: { steps: { on: (f: (lines: string[]) => void) => void } }): ReactElement {
  const [lines, setLines] = useState<string[]>([]);
  useEffect(() => steps.on(setLines), [steps]);
  return createElement(Box, { flexDirection: 'column' }, ...lines.map((l, i) => createElement(Text, { key: i }, l)));
}

describe.skipIf(!hasTmux())('the cell-diff writer with wide characters, blanked tails and a resize', () => {
  it('keeps the screen equal to a full redraw while CJK text shifts by one column and lines shrink', async () => {
    let push: (lines: string[]) => void = () => undefined;
    const steps = { on: (f: (l: string[]) => void) => (push = f) };
    const term = new Term(40, 8);
    const app = mount(createElement(Lines, { steps }), anchoredStdout(term as unknown as NodeJS.WriteStream), true);
    const frames: string[][] = [
      ['漢字テスト abc', 'ascii line that is long', '表 x 表 y', 'tail'],
      // one column to the right: every wide character now straddles its old cells
      [' 漢字テスト abc', 'ascii line', 'x表 x 表y', 'tail'],
      ['a漢b字', 'ascii line that is longer now', '', '表表表表表表表表表表表表表表表表表表表表'],
      ['漢', 'A', '表 x 表 y', '表表表表表表表表表表表表表表表表表表表 z'],
    ];
    for (const f of frames) {
      push(f);
      await settle(term);
    }
    const last = frames[frames.length - 1]!;
    const ref = createElement(Box, { flexDirection: 'column' }, ...last.map((l, i) => createElement(Text, { key: i }, l)));
    expect(await screenOf(term.text.replace(/\u001b\[\?25[hl]/g, ''), 40, 8)).toBe(await screenOf(await fullRedraw(ref, 40, 8), 40, 8));
    // A resize: the terminal's old content is not trusted, the frame is painted whole.
    const mark = term.text.length;
    term.columns = 30;
    term.emit('resize');
    await settle(term);
    push(['漢字 after', 'resize']);
    await settle(term);
    app.unmount();
    const after = term.text.slice(mark).replace(/\u001b\[\?25[hl]/g, '');
    expect(after.startsWith('\u001b[m\u001b[H\u001b[2J')).toBe(true);
    const ref2 = createElement(Box, { flexDirection: 'column' }, createElement(Text, {}, '漢字 after'), createElement(Text, {}, 'resize'));
    expect(await screenOf(after, 30, 8)).toBe(await screenOf(await fullRedraw(ref2, 30, 8), 30, 8));
  });
});

describe.skipIf(!hasTmux())('the screen model agrees with a terminal (tmux)', () => {
  const textOf = (g: TermGrid): string => g.rows.map((r) => r.ch.join('').trimEnd()).join('\n');
  const cases: [string, string][] = [
    ['the right half of a wide character overwritten blanks its left half', '表表\u001b[1;4Hy'],
    ['a full-width line keeps its last cell under "erase to end of line"', `${'a'.repeat(19)}b\u001b[K\r\nnext`],
    ['a wide character that does not fit wraps', `${'c'.repeat(19)}漢\r\n`],
    ['erases: below, line start, whole line', 'one\r\ntwo\r\nthree\u001b[2;2H\u001b[1Kx\u001b[1;1H\u001b[2K\u001b[3;3H\u001b[J'],
    ['a newline on the last row scrolls', '1\r\n2\r\n3\r\n4\r\n5'],
  ];
  for (const [name, bytes] of cases) {
    it(name, async () => {
      const g = new TermGrid(20, 4);
      g.write(bytes);
      const tmux = (await screenOf(`\u001b[H\u001b[2J${bytes}`, 20, 4))
        .split('\n')
        .slice(0, 4)
        .map((l) => l.trimEnd())
        .join('\n');
      expect(textOf(g)).toBe(tmux);
    });
  }
});
