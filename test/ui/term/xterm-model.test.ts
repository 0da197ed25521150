import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { anchorFrame, anchoredStdout } from '../../../src/ui/term/anchored-stdout.js';
import { TermGrid, type ScreenModel, type ScreenModelOf } from '../../../src/ui/term/grid.js';
import { XtermGrid } from '../../bench/xterm-grid.js';

// Our screen model (TermGrid) and @xterm/headless behind the same interface (XtermGrid) give
// the same screen, cell by cell (text, width, style), after every recorded control-room frame,
// and the cell-diff writer sends the same bytes on either: docs/decisions/terminal-model.md.
// The frames are the real ControlRoom's, recorded by test/bench/term-record.ts.

interface Recording {
  cols: number;
  rows: number;
  steps: { name: string; incremental: string[]; full: string[] }[];
}

const FRAMES = join(import.meta.dirname, '..', '..', 'fixtures', 'term-frames');
const recordings = ['80x24', '200x60'].map((n) => [n, JSON.parse(readFileSync(join(FRAMES, `${n}.json`), 'utf8')) as Recording] as const);

const screen = (m: ScreenModel): string[] => {
  m.takeDirty();
  return m.rows.map((r, y) => `${y}|${r.ch.map((c, x) => `${c}${r.w[x]}${r.st[x] ? `{${r.st[x]}}` : ''}`).join('')}`);
};

class Sink extends Writable {
  text = '';
  constructor(
    public columns: number,
    public rows: number,
  ) {
    super();
  }
  isTTY = true;
  _write(chunk: Buffer, _enc: string, cb: () => void): void {
    this.text += chunk.toString('utf8');
    cb();
  }
}

const ours: ScreenModelOf = (c, h, clip) => new TermGrid(c, h, clip);
const xterm: ScreenModelOf = (c, h, clip) => new XtermGrid(c, h, clip);

describe.each(recordings)('the control room at %s, recorded', (_name, rec) => {
  const frames = (mode: 'incremental' | 'full'): [string, string][] => rec.steps.flatMap((s) => s[mode].map((f) => [s.name, f] as [string, string]));

  it.each(['incremental', 'full'] as const)('gives the same screen on both models after every %s frame', (mode) => {
    const a = ours(rec.cols, rec.rows, true);
    const b = xterm(rec.cols, rec.rows, true);
    let first = true;
    let n = 0;
    for (const [step, frame] of frames(mode)) {
      const anchored = anchorFrame(frame, first);
      if (anchored !== frame) first = false;
      expect(b.write(anchored), `${step} frame ${n}: passed-on sequences`).toEqual(a.write(anchored));
      expect(screen(b), `${step} frame ${n}`).toEqual(screen(a));
      expect(b.cursor(), `${step} frame ${n}: cursor`).toEqual(a.cursor());
      n++;
    }
    expect(n).toBeGreaterThan(20);
  });

  it('sends the same bytes through the cell-diff writer on either model', () => {
    const [ta, tb] = [new Sink(rec.cols, rec.rows), new Sink(rec.cols, rec.rows)];
    const [wa, wb] = [anchoredStdout(ta as unknown as NodeJS.WriteStream, undefined, ours), anchoredStdout(tb as unknown as NodeJS.WriteStream, undefined, xterm)];
    for (const [step, frame] of frames('incremental')) {
      const [la, lb] = [ta.text.length, tb.text.length];
      wa.write(frame);
      wb.write(frame);
      expect(tb.text.slice(lb), step).toBe(ta.text.slice(la));
    }
  });

  it('covers what the models must agree on: wide characters, styles and a scrolled overlay', () => {
    const all = frames('incremental').map(([, f]) => f).join('');
    expect(all).toMatch(/[\u4e00-\u9fff]/);
    expect(all).toMatch(/✅/u);
    expect(all).toMatch(/\u001b\[3\dm/);
    expect(rec.steps.map((s) => s.name)).toEqual(['first', 'marker', 'scroll', 'wide']);
  });
});

// Beyond the recorded frames: sequences Ink may send that the demo's frames do not (dim and its
// reset, 256 and RGB colours, next-line moves, erase modes, autowrap and the scroll at the
// bottom row, a wide character overwritten by half), on an unclipped screen.
const E = '\u001b[';
const SEQUENCES: [string, string][] = [
  ['dim, then bold off clears it', `${E}2mdim${E}22m plain ${E}1;2mboth${E}22m`],
  ['256 and RGB colours, bright and background', `${E}38;5;208ma${E}48;2;1;2;3mb${E}93;104mc${E}39;49md${E}m`],
  ['italic, underline, inverse, strikethrough and their offs', `${E}3;4;7;9mx${E}23my${E}24mz${E}27mw${E}29mv${E}m`],
  ['next and previous line keep no column', `abc${E}Edef${E}Fgh${E}3Gi`],
  ['erase to the end, to the start and the whole line', `0123456789${E}5G${E}K\n0123456789${E}5G${E}1K\n0123456789${E}2K+`],
  ['erase below and above', `aaaa\nbbbb\ncccc${E}2;2H${E}J${E}1;3H${E}1J`],
  ['autowrap past the margin, then a scroll from the bottom row', `${'x'.repeat(25)}\n1\n2\n3\n4\n5`],
  ['a wide character overwritten on either half', `漢字テスト${E}1;2Hx${E}1;5Hy`],
  ['save and restore the cursor', `ab\u001b7cd${E}2;1Hef\u001b8g`],
];

describe('sequences beyond the recorded frames', () => {
  it.each(SEQUENCES)('%s: the same screen and cursor on both models', (_what, seq) => {
    const [a, b] = [ours(20, 5, false), xterm(20, 5, false)];
    a.write(seq);
    b.write(seq);
    expect(screen(b)).toEqual(screen(a));
    expect(b.cursor()).toEqual(a.cursor());
  });
});
