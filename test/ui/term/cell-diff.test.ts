import { describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { anchoredStdout } from '../../../src/ui/term/anchored-stdout.js';
import { TermGrid } from '../../../src/ui/term/grid.js';
import { applySgr, sgrTransition, PLAIN } from '../../../src/ui/term/style.js';

// Issue 10 item 5 without a terminal: the writer's bytes, played into a screen model, give
// the screen a full redraw of the last frame gives; and a one-cell change costs one move and
// one cell. (test/e2e/tmux/paint-diff.test.ts checks the same on real frames with tmux as the terminal.)

const E = '\u001b[';

class Term extends Writable {
  isTTY = true;
  columns = 20;
  rows = 5;
  text = '';
  _write(chunk: Buffer, _enc: string, cb: () => void): void {
    this.text += chunk.toString('utf8');
    cb();
  }
}

const screen = (bytes: string): string => {
  const g = new TermGrid(20, 5);
  g.write(bytes);
  return g.rows.map((r) => r.ch.map((c, i) => `${c}${r.st[i] ? `{${r.st[i]}}` : ''}`).join('')).join('\n');
};

// Ink's incremental frames as it writes them: the first whole, later ones from the top.
const up = (n: number): string => `${E}2K${E}1A`.repeat(n) + `${E}G`;

describe('the cell-diff writer, played into a screen model', () => {
  it('writes one move and one cell for a one-cell change, and the screen equals a full redraw', () => {
    const t = new Term();
    const out = anchoredStdout(t as unknown as NodeJS.WriteStream);
    out.write(`${E}32m██░░${E}39m 29/100 done\n${E}90mlive: watch${E}39m\n`);
    const mark = t.text.length;
    const next = `${E}32m██░░${E}39m 28/100 done\n${E}90mlive: watch${E}39m\n`;
    out.write(`${up(2)}${E}G${next.split('\n')[0]}${E}K\n${E}E`);
    expect(t.text.slice(mark)).toBe(`${E}1;7H8`);
    expect(screen(t.text)).toBe(screen(`${E}H${E}2J${next}`));
  });

  it('restores the style in effect at the changed column, and blanks a shortened tail', () => {
    const t = new Term();
    const out = anchoredStdout(t as unknown as NodeJS.WriteStream);
    out.write(`${E}1;31mfailed: 3${E}22;39m and more\n`);
    const mark = t.text.length;
    out.write(`${up(1)}${E}G${E}1;31mfailed: 4${E}22;39m${E}K\n`);
    const diff = t.text.slice(mark);
    expect(diff).toBe(`${E}1;9H${E}1;31m4${E}m${E}K`);
    expect(screen(t.text)).toBe(screen(`${E}H${E}2J${E}1;31mfailed: 4${E}22;39m\n`));
  });

  it('moves a CJK run by one column without leaving half a character', () => {
    const t = new Term();
    const out = anchoredStdout(t as unknown as NodeJS.WriteStream);
    out.write('漢字テスト\nx\n');
    out.write(`${up(2)}${E}G a漢字テ${E}K\n${E}E`);
    expect(screen(t.text)).toBe(screen(`${E}H${E}2J a漢字テ\nx\n`));
  });
});

describe('SGR keys', () => {
  it('are equal for the same look, however it was written', () => {
    expect(applySgr(PLAIN, '1;32')).toBe(applySgr(applySgr(PLAIN, '32'), '1'));
    expect(applySgr(applySgr(PLAIN, '1;32'), '22;39')).toBe(PLAIN);
    expect(applySgr(PLAIN, '38;5;208')).toBe('38;5;208');
  });

  it('turn into the shortest sequence between two styles', () => {
    expect(sgrTransition(PLAIN, '32')).toBe(`${E}32m`);
    expect(sgrTransition('32', '33')).toBe(`${E}33m`);
    expect(sgrTransition('1;32', '32')).toBe(`${E}0;32m`);
    expect(sgrTransition('90', PLAIN)).toBe(`${E}m`);
    expect(sgrTransition('31', '31')).toBe('');
  });
});
