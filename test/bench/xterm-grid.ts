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
// eslint-disable-next-line no-control-regex -- terminal input is parsed here on purpose
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

/** The parts of xterm's core this model uses: a synchronous write and the rows it touched. */
interface Core {
  writeSync(data: string): void;
  _inputHandler: { _dirtyRowTracker: { start: number; end: number } };
}

export class XtermGrid implements ScreenModel {
  rows: Row[];
  private readonly term: InstanceType<typeof Terminal>;
  private readonly core: Core;
  private readonly cell: IBufferCell;
  private dirty = new Set<number>();

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
  }

  write(text: string): string[] {
    const pass = text.match(PRIVATE) ?? [];
    this.core.writeSync(pass.length > 0 ? text.replace(PRIVATE, '') : text);
    const { start, end } = this.core._inputHandler._dirtyRowTracker;
    for (let r = Math.max(0, start); r <= Math.min(this.height - 1, end); r++) this.dirty.add(r);
    return pass;
  }

  takeDirty(): number[] {
    const out = [...this.dirty].sort((a, b) => a - b);
    this.dirty.clear();
    for (const y of out) this.read(y);
    return out;
  }

  markAll(): void {
    for (let r = 0; r < this.height; r++) this.dirty.add(r);
  }

  resize(cols: number, height: number): void {
    this.term.resize(cols, height);
    [this.cols, this.height] = [cols, height];
    this.rows = Array.from({ length: height }, () => blankRow(cols));
    this.markAll();
  }

  cursor(): [number, number] {
    const b = this.term.buffer.active;
    return [Math.min(this.cols - 1, b.cursorX), b.cursorY];
  }

  /** Row `y` of the screen as TermGrid keeps it: both halves of a wide character carry its style. */
  private read(y: number): void {
    const b = this.term.buffer.active;
    const line = b.getLine(b.baseY + y);
    const row = this.rows[y]!;
    if (!line) return;
    for (let c = 0; c < this.cols; c++) {
      const cell = line.getCell(c, this.cell)!;
      const w = cell.getWidth();
      row.w[c] = w;
      row.ch[c] = w === 0 ? '' : cell.getChars() || ' ';
      row.st[c] = styleKey(cell);
    }
  }
}
