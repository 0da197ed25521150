import stringWidth from 'string-width';
import { applySgr, PLAIN } from './style.js';

// A model of the screen that Ink's writes describe. Ink speaks in whole
// lines and relative moves; this grid interprets them as a terminal would (cursor moves,
// erases, SGR, wide characters, autowrap, scrolling), so the writer can compare what Ink
// wants with what the terminal shows cell by cell. Sequences that change no cell (cursor
// visibility, synchronized output, the alternate screen) are handed back to be passed on.

/** One row: a cell's text ('' for the right half of a wide character), style key and width. */
export interface Row {
  ch: string[];
  st: string[];
  w: Uint8Array;
}

/**
 * What the cell-diff writer reads: a screen fed with Ink's bytes, read back as rows. TermGrid
 * is ours; docs/decisions/terminal-model.md weighs it against @xterm/headless behind this.
 */
export interface ScreenModel {
  readonly rows: Row[];
  readonly cols: number;
  readonly height: number;
  /** Interpret one write; returns the sequences that change no cell, in order, to pass on. */
  write(text: string): string[];
  /** Rows written since the last call, in order; `rows` is current for them once it returns. */
  takeDirty(): number[];
  markAll(): void;
  resize(cols: number, height: number): void;
  cursor(): [number, number];
}

/** Builds the model of what Ink wants; `clip`: see TermGrid. */
export type ScreenModelOf = (cols: number, height: number, clip: boolean) => ScreenModel;

export const blankRow = (cols: number): Row => ({
  ch: new Array<string>(cols).fill(' '),
  st: new Array<string>(cols).fill(PLAIN),
  w: new Uint8Array(cols).fill(1),
});

export const copyRow = (r: Row): Row => ({ ch: r.ch.slice(), st: r.st.slice(), w: r.w.slice() });

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const widths = new Map<string, number>();
const widthOf = (g: string): number => {
  let w = widths.get(g);
  if (w === undefined) {
    w = Math.min(2, stringWidth(g));
    if (widths.size < 10_000) widths.set(g, w);
  }
  return w;
};

// eslint-disable-next-line no-control-regex -- terminal input is parsed here on purpose
const CSI = /\u001b\[([0-?]*)[ -/]*([@-~])/y;
// eslint-disable-next-line no-control-regex -- OSC ends at BEL or ST
const OSC = /\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?/y;
// Runs of plain printable ASCII take the fast path: one cell a character.
const ASCII = /[ -~]+/y;
// eslint-disable-next-line no-control-regex -- text up to the next control character
const TEXT = /[^\u0000-\u001f\u007f]+/y;

const at = (re: RegExp, text: string, i: number): RegExpExecArray | null => {
  re.lastIndex = i;
  return re.exec(text);
};

export class TermGrid implements ScreenModel {
  rows: Row[];
  /** Rows written since the last `takeDirty` (all rows after a scroll or a clear). */
  private dirty = new Set<number>();
  private x = 0;
  private y = 0;
  private wrapPending = false;
  private style = PLAIN;
  private saved: [number, number] = [0, 0];

  /**
   * `clip`: text past the right margin is dropped instead of wrapping onto the next row (a
   * terminal with autowrap off). The writer's model of what Ink wants clips: Ink counts one
   * row a line, and right after the terminal narrows its frame is still laid out for the old
   * width; wrapping those lines would scroll the model, and Ink's later incremental frames,
   * which rewrite only the lines they changed, would leave the scrolled rows on screen.
   */
  constructor(
    public cols: number,
    public height: number,
    private readonly clip = false,
  ) {
    this.rows = Array.from({ length: height }, () => blankRow(cols));
  }

  /** Keep what fits of the old content at the new size (the terminal's own reflow is not modelled). */
  resize(cols: number, height: number): void {
    this.rows = Array.from({ length: height }, (_, r) => {
      const old = this.rows[r];
      const row = blankRow(cols);
      if (!old) return row;
      for (let c = 0; c < Math.min(cols, this.cols); c++) [row.ch[c], row.st[c], row.w[c]] = [old.ch[c]!, old.st[c]!, old.w[c]!];
      // A wide character cut in half at the new edge becomes a blank.
      if (cols < this.cols && row.w[cols - 1] === 2) [row.ch[cols - 1], row.w[cols - 1]] = [' ', 1];
      return row;
    });
    [this.cols, this.height] = [cols, height];
    this.x = Math.min(this.x, cols - 1);
    this.y = Math.min(this.y, height - 1);
    this.markAll();
  }

  cursor(): [number, number] {
    return [this.x, this.y];
  }

  takeDirty(): number[] {
    const out = [...this.dirty].sort((a, b) => a - b);
    this.dirty.clear();
    return out;
  }

  markAll(): void {
    for (let r = 0; r < this.height; r++) this.dirty.add(r);
  }

  /** Interpret one write; returns the sequences that change no cell, in order, to pass on. */
  write(text: string): string[] {
    const pass: string[] = [];
    for (let i = 0; i < text.length;) {
      const c = text.charCodeAt(i);
      if (c === 0x1b) {
        i += this.escape(text, i, pass);
      } else if (c < 0x20 || c === 0x7f) {
        this.control(c);
        i += 1;
      } else {
        const m = (at(ASCII, text, i) ?? at(TEXT, text, i))!;
        if (m[0].charCodeAt(0) <= 0x7e) for (const ch of m[0]) this.put(ch, 1);
        else for (const { segment } of segmenter.segment(m[0])) this.put(segment, widthOf(segment));
        i += m[0].length;
      }
    }
    return pass;
  }

  private escape(text: string, i: number, pass: string[]): number {
    const csi = at(CSI, text, i);
    if (csi) {
      this.csi(csi[1]!, csi[2]!, csi[0], pass);
      return csi[0].length;
    }
    const next = text[i + 1];
    if (next === ']') return Math.max(2, at(OSC, text, i)?.[0].length ?? 2);
    if (next === '7') this.saved = [this.x, this.y];
    else if (next === '8') [this.x, this.y, this.wrapPending] = [...this.saved, false];
    else if (next === 'c') this.erase(0, 0, this.height - 1, this.cols);
    return next === undefined ? 1 : 2;
  }

  private csi(params: string, final: string, whole: string, pass: string[]): void {
    if (params.startsWith('?') || params.startsWith('>') || params.startsWith('<') || params.startsWith('=')) {
      pass.push(whole);
      return;
    }
    if (final === 'm') {
      this.style = applySgr(this.style, params);
      return;
    }
    const nums = params.split(';').map((p) => (p === '' ? 0 : Number(p)));
    const n = Math.max(1, nums[0] ?? 1);
    const move = (x: number, y: number): void => {
      [this.x, this.y, this.wrapPending] = [Math.max(0, Math.min(this.cols - 1, x)), Math.max(0, Math.min(this.height - 1, y)), false];
    };
    if (final === 'H' || final === 'f') move(Math.max(1, nums[1] ?? 1) - 1, n - 1);
    else if (final === 'A') move(this.x, this.y - n);
    else if (final === 'B') move(this.x, this.y + n);
    else if (final === 'C') move(this.x + n, this.y);
    else if (final === 'D') move(this.x - n, this.y);
    else if (final === 'E') move(0, this.y + n);
    else if (final === 'F') move(0, this.y - n);
    else if (final === 'G') move(n - 1, this.y);
    else if (final === 'K') this.eraseLine(nums[0] ?? 0);
    else if (final === 'J') this.eraseDisplay(nums[0] ?? 0);
  }

  // After the last column, a terminal holds the cursor there until the next character: an
  // erase then starts after it, so a full-width line followed by "\e[K" keeps its last cell.
  private eraseLine(mode: number): void {
    const from = this.wrapPending ? this.x + 1 : this.x;
    if (mode === 0) this.erase(this.y, from, this.y, this.cols);
    else if (mode === 1) this.erase(this.y, 0, this.y, this.x + 1);
    else this.erase(this.y, 0, this.y, this.cols);
  }

  private eraseDisplay(mode: number): void {
    if (mode === 0) this.erase(this.y, this.wrapPending ? this.x + 1 : this.x, this.height - 1, this.cols);
    else if (mode === 1) this.erase(0, 0, this.y, this.x + 1);
    else if (mode === 2) this.erase(0, 0, this.height - 1, this.cols);
    // 3: the scrollback only; no cell on screen changes.
  }

  /** Blank cells from (r0, c0) to before (r1, c1), row-major, as a terminal erases. */
  private erase(r0: number, c0: number, r1: number, c1: number): void {
    for (let r = r0; r <= r1; r++) {
      const row = this.rows[r]!;
      const from = r === r0 ? c0 : 0;
      const to = r === r1 ? c1 : this.cols;
      for (let c = from; c < to; c++) this.set(row, c, ' ', PLAIN, 1);
      this.fixWide(row, from, to);
      this.dirty.add(r);
    }
  }

  private control(c: number): void {
    if (c === 0x0a) {
      // The tty's ONLCR (kept on in raw mode by libuv) makes a newline a carriage return too.
      this.x = 0;
      this.lineFeed();
    } else if (c === 0x0d) [this.x, this.wrapPending] = [0, false];
    else if (c === 0x08) [this.x, this.wrapPending] = [Math.max(0, this.x - 1), false];
    else if (c === 0x09) this.x = Math.min(this.cols - 1, (Math.floor(this.x / 8) + 1) * 8);
  }

  private lineFeed(): void {
    this.wrapPending = false;
    if (this.y < this.height - 1) {
      this.y += 1;
      return;
    }
    this.rows.shift();
    this.rows.push(blankRow(this.cols));
    this.markAll();
  }

  private put(g: string, w: number): void {
    if (w === 0) return; // a lone zero-width mark: nothing a cell can show
    if (this.wrapPending || this.x + w > this.cols) {
      if (this.clip) return;
      this.x = 0;
      this.lineFeed();
    }
    const row = this.rows[this.y]!;
    this.set(row, this.x, g, this.style, w);
    if (w === 2) this.set(row, this.x + 1, '', this.style, 0);
    this.fixWide(row, this.x, this.x + w);
    this.dirty.add(this.y);
    if (this.x + w >= this.cols) [this.x, this.wrapPending] = [this.cols - 1, true];
    else this.x += w;
  }

  private set(row: Row, c: number, ch: string, st: string, w: number): void {
    row.ch[c] = ch;
    row.st[c] = st;
    row.w[c] = w;
  }

  // Overwriting one half of a wide character blanks its other half, as xterm does (tmux keeps
  // a left half's glyph). Terminals differ here, so the writer never writes half of one:
  // both halves carry the character's text and style, and a diff covers both or neither.
  private fixWide(row: Row, from: number, to: number): void {
    if (from > 0 && row.w[from] !== 0 && row.w[from - 1] === 2) this.set(row, from - 1, ' ', row.st[from - 1]!, 1);
    if (to < this.cols && row.w[to] === 0) this.set(row, to, ' ', row.st[to]!, 1);
  }
}
