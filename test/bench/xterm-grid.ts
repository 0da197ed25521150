import xterm from '@xterm/headless';
import unicode11 from '@xterm/addon-unicode11';
import type { IBufferCell } from '@xterm/headless';
import { blankRow, type Row, type ScreenModel } from '../../src/ui/term/grid.js';
import { PLAIN } from '../../src/ui/term/style.js';

// The screen model of src/ui/term/grid.ts on @xterm/headless, behind the same interface the
// cell-diff writer reads (ScreenModel), for the bench and the equivalence test that weigh the
// two (docs/decisions/terminal-model.md). xterm parses; this reads its cells back as rows
// whose style keys are the ones src/ui/term/style.ts builds, so the same diff runs on both.

const { Terminal } = xterm;
const { Unicode11Addon } = unicode11;

// Sequences that change no cell (cursor visibility, synchronized output, screen switches) are
// handed back to be passed on, as TermGrid does, and kept from xterm: a screen switch there
// would swap the buffer the cells are read from.
const PRIVATE = /\u001b\[[?<>=][0-?]*[ -/]*[@-~]/g;

// xterm's colour modes (IBufferCell.getFgColorMode).
const P16 = 0x1000000;
const P256 = 0x2000000;
const RGB = 0x3000000;

/** A colour as the SGR text TermGrid keeps ("31", "91", "38;5;208", "38;2;r;g;b"), or null. */
function colour(mode: number, c: number, base: 30 | 40): string | null {
  if (mode === P16) return String(c < 8 ? base + c : base + 60 + c - 8);
  if (mode === P256) return `${base + 8};5;${c}`;
  if (mode === RGB) return `${base + 8};2;${(c >> 16) & 255};${(c >> 8) & 255};${c & 255}`;
  return null;
}

/** The style key of src/ui/term/style.ts: attribute codes in order, then fg, then bg. */
function styleKey(cell: IBufferCell): string {
  if (cell.isAttributeDefault()) return PLAIN;
  const parts: string[] = [];
  if (cell.isBold()) parts.push('1');
  if (cell.isDim()) parts.push('2');
  if (cell.isItalic()) parts.push('3');
  if (cell.isUnderline()) parts.push('4');
  if (cell.isBlink()) parts.push('5');
  if (cell.isInverse()) parts.push('7');
  if (cell.isInvisible()) parts.push('8');
  if (cell.isStrikethrough()) parts.push('9');
  if (cell.isOverline()) parts.push('53');
  const fg = colour(cell.getFgColorMode(), cell.getFgColor(), 30);
  const bg = colour(cell.getBgColorMode(), cell.getBgColor(), 40);
  if (fg !== null) parts.push(fg);
  if (bg !== null) parts.push(bg);
  return parts.join(';');
}

/** One row of xterm's buffer: three words a cell (content and width, fg and flags, bg and flags). */
interface Line {
  _data: Uint32Array;
  _combined: Record<number, string>;
  getWidth(x: number): number;
  getFg(x: number): number;
  getBg(x: number): number;
  getString(x: number): string;
}

/**
 * The parts of xterm's core this model uses: a synchronous write, the range of rows a write
 * touched, and the rows themselves. The public API has none of the first two (writes are
 * asynchronous there) and reads a cell through an object per call: see the decision page.
 */
interface Core {
  writeSync(data: string): void;
  _inputHandler: { _dirtyRowTracker: { start: number; end: number } };
  buffer: { ybase: number; lines: { get(i: number): Line | undefined } };
}

export class XtermGrid implements ScreenModel {
  rows: Row[];
  private readonly term: InstanceType<typeof Terminal>;
  private readonly core: Core;
  private readonly cell: IBufferCell;
  /** Rows a write touched: read back only where their cells really changed. */
  private touched = new Set<number>();
  /** Rows to hand back whatever they hold (after markAll or a resize). */
  private forced = new Set<number>();
  /** Each row's cell words as last read, to tell a touched row from a changed one. */
  private seen: (Uint32Array | null)[];
  /** Style keys by xterm's (fg, bg) words: most cells share a handful. */
  private readonly keys = new Map<number, Map<number, string>>();

  /** `clip`: autowrap off (xterm then overwrites the last column where TermGrid drops the text). */
  constructor(
    public cols: number,
    public height: number,
    clip = false,
  ) {
    // A newline is a carriage return too, as the tty's ONLCR makes it (see TermGrid).
    this.term = new Terminal({ cols, rows: height, scrollback: 0, convertEol: true, allowProposedApi: true });
    // xterm's own width table is Unicode 6: an emoji such as ✅ is one cell there, two in the
    // terminals we draw on and in string-width; the Unicode 11 table agrees with them.
    this.term.loadAddon(new Unicode11Addon() as unknown as Parameters<typeof this.term.loadAddon>[0]);
    this.term.unicode.activeVersion = '11';
    this.core = (this.term as unknown as { _core: Core })._core;
    if (clip) this.core.writeSync('\u001b[?7l');
    this.cell = this.term.buffer.active.getNullCell();
    this.rows = Array.from({ length: height }, () => blankRow(cols));
    this.seen = new Array<Uint32Array | null>(height).fill(null);
  }

  write(text: string): string[] {
    const pass = text.match(PRIVATE) ?? [];
    this.core.writeSync(pass.length > 0 ? text.replace(PRIVATE, '') : text);
    const { start, end } = this.core._inputHandler._dirtyRowTracker;
    for (let r = Math.max(0, start); r <= Math.min(this.height - 1, end); r++) this.touched.add(r);
    return pass;
  }

  takeDirty(): number[] {
    const out: number[] = [];
    for (let y = 0; y < this.height; y++) {
      if (!this.forced.has(y) && !this.touched.has(y)) continue;
      if (this.read(y, this.forced.has(y))) out.push(y);
    }
    this.touched.clear();
    this.forced.clear();
    return out;
  }

  markAll(): void {
    for (let r = 0; r < this.height; r++) this.forced.add(r);
  }

  resize(cols: number, height: number): void {
    this.term.resize(cols, height);
    [this.cols, this.height] = [cols, height];
    this.rows = Array.from({ length: height }, () => blankRow(cols));
    this.seen = new Array<Uint32Array | null>(height).fill(null);
    this.markAll();
  }

  cursor(): [number, number] {
    const b = this.term.buffer.active;
    return [Math.min(this.cols - 1, b.cursorX), b.cursorY];
  }

  /**
   * Row `y` of the screen as TermGrid keeps it (both halves of a wide character carry its
   * style); false when its cells are the ones last read and it was not forced.
   */
  private read(y: number, force: boolean): boolean {
    const line = this.core.buffer.lines.get(this.core.buffer.ybase + y);
    if (!line) return false;
    const seen = this.seen[y];
    // A grapheme of several code points lives beside the words: such a row is always read.
    const combined = Object.keys(line._combined).length > 0;
    if (!force && !combined && seen && sameWords(seen, line._data)) return false;
    this.seen[y] = line._data.slice();
    const row = this.rows[y]!;
    for (let c = 0; c < this.cols; c++) {
      const w = line.getWidth(c);
      row.w[c] = w;
      row.ch[c] = w === 0 ? '' : line.getString(c) || ' ';
      row.st[c] = this.styleAt(line, y, c);
    }
    return true;
  }

  private styleAt(line: Line, y: number, c: number): string {
    const [fg, bg] = [line.getFg(c), line.getBg(c)];
    let byBg = this.keys.get(fg);
    if (!byBg) this.keys.set(fg, (byBg = new Map()));
    let key = byBg.get(bg);
    if (key === undefined) {
      const b = this.term.buffer.active;
      key = styleKey(b.getLine(b.baseY + y)!.getCell(c, this.cell)!);
      byBg.set(bg, key);
    }
    return key;
  }
}

const sameWords = (a: Uint32Array, b: Uint32Array): boolean => {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
