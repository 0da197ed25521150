import type { Row } from './grid.js';
import { PLAIN, sgrTransition } from './style.js';

// The bytes that turn the rows a terminal shows into the rows wanted (one
// count changing cost ~110 bytes a line because whole lines were rewritten). Per row, only
// the runs of differing cells are written: the cursor goes to the run's column, the style in
// effect there is set with the fewest parameters, the cells follow; a tail that became blank
// is erased with one "\e[K".

/** Same cells closer than this are rewritten rather than jumped over: a jump costs more. */
const GAP = 4;

const sameCell = (a: Row, b: Row, c: number): boolean => a.ch[c] === b.ch[c] && a.st[c] === b.st[c];
const blank = (r: Row, c: number): boolean => r.ch[c] === ' ' && r.st[c] === PLAIN;
const lastContent = (r: Row, cols: number): number => {
  let c = cols - 1;
  while (c >= 0 && blank(r, c)) c--;
  return c;
};

/**
 * Runs [start, end] (inclusive) of differing cells up to `last`. A run never starts or ends
 * inside a wide character: both halves of one carry its text and style (TermGrid), so where
 * one half differs the other does too.
 */
export function changedRuns(shown: Row, want: Row, last: number): [number, number][] {
  const runs: [number, number][] = [];
  for (let c = 0; c <= last; c++) {
    if (sameCell(shown, want, c)) continue;
    const s = c;
    let e = c;
    while (e + 1 <= last && !sameCell(shown, want, e + 1)) e++;
    const prev = runs[runs.length - 1];
    if (prev && s - prev[1] - 1 <= GAP) prev[1] = Math.max(prev[1], e);
    else runs.push([s, e]);
    c = e;
  }
  return runs;
}

/** Writes rows to a terminal, keeping track of its cursor and style between runs. */
export class CellWriter {
  private out: string[] = [];
  private x = -1;
  private y = -1;
  private style = PLAIN;

  constructor(private readonly cols: number) {}

  private moveTo(x: number, y: number): void {
    if (x === this.x && y === this.y) return;
    this.out.push(y === this.y ? `\u001b[${x + 1}G` : `\u001b[${y + 1};${x + 1}H`);
    [this.x, this.y] = [x, y];
  }

  private setStyle(st: string): void {
    this.out.push(sgrTransition(this.style, st));
    this.style = st;
  }

  /** The bytes that turn `shown` into `want` on screen row `y`. */
  row(y: number, shown: Row, want: Row): void {
    const lastWant = lastContent(want, this.cols);
    const lastShown = lastContent(shown, this.cols);
    let written = -1;
    for (const [s, e] of changedRuns(shown, want, Math.min(this.cols - 1, lastWant))) {
      this.moveTo(s, y);
      for (let c = s; c <= e && c < this.cols; c++) {
        if (want.w[c] === 0) continue;
        this.setStyle(want.st[c]!);
        this.out.push(want.ch[c]!);
        this.x += want.w[c]!;
      }
      written = e;
    }
    const from = Math.max(lastWant, written) + 1;
    if (lastShown >= from) {
      this.moveTo(from, y);
      // An erase paints the current background: plain first.
      this.setStyle(PLAIN);
      this.out.push('\u001b[K');
    }
  }

  /** Everything written so far, the style back to plain so no other writer inherits ours. */
  take(): string {
    this.setStyle(PLAIN);
    const text = this.out.join('');
    this.out = [];
    return text;
  }

  /** Where the next write must start: positions are no longer known (another writer, a resize). */
  forget(): void {
    [this.x, this.y] = [-1, -1];
  }

  /** After a run the cursor stands here (or past the last column); for placing it explicitly. */
  place(x: number, y: number): void {
    this.moveTo(x, y);
  }
}
