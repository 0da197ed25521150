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
