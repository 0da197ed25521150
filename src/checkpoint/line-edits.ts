import type { Line } from './update-cell.js';

// The edit-in-place model of a checkpoint rewrite: the file is its lines,
// each with its own line end; a rewrite replaces the bodies of lines checkroom owns and
// inserts lines after a given one. Every other byte — notes, blank lines, CRLF or LF, a last
// line with no line end — is never read into a model, so it cannot be lost.

export class LineEdits {
  private readonly inserts = new Map<number, { rank: number; bodies: string[] }[]>();

  constructor(
    private readonly lines: Line[],
    private readonly eol: string,
  ) {}

  get count(): number {
    return this.lines.length;
  }

  body(i: number): string {
    return this.lines[i]?.body ?? '';
  }

  set(i: number, body: string): void {
    this.lines[i].body = body;
  }

  /** True when something of `rank` is already inserted after line `i`. */
  insertedAfter(i: number, rank: number): boolean {
    return (this.inserts.get(this.at(i)) ?? []).some((x) => x.rank === rank);
  }

  /**
   * Insert `bodies` after line index `i` (-1: before the first line). At one place, lower
   * ranks come first and equal ranks in call order: a new batch table (rank 0) stays under
   * its phase when a later phase line (rank 1) is added at the same place.
   */
  insertAfter(i: number, bodies: string[], rank = 0): void {
    if (bodies.length === 0) return;
    const at = this.at(i);
    this.inserts.set(at, [...(this.inserts.get(at) ?? []), { rank, bodies }]);
  }

  private added(i: number): string[] | undefined {
    const all = this.inserts.get(i);
    return all && [...all].sort((a, b) => a.rank - b.rank).flatMap((x) => x.bodies);
  }

  /** The empty "line" after a file's last line end is no line: inserts go before it. */
  private at(i: number): number {
    const last = this.lines.length - 1;
    return i >= last && last > 0 && this.lines[last].body === '' && this.lines[last].eol === '' ? last - 1 : Math.min(i, last);
  }

  text(bom: string): string {
    const out: Line[] = [];
    const add = (bodies: string[] | undefined): void => {
      for (const body of bodies ?? []) out.push({ body, eol: this.eol });
    };
    add(this.added(-1));
    this.lines.forEach((l, i) => {
      const added = this.added(i);
      if (added?.length && l.eol === '') {
        // After a last line with no line end, the new last line has none either; a file cut
        // between CR and LF keeps its CR, the LF completes it (as insert-row.ts does).
        out.push({ body: l.body, eol: l.body.endsWith('\r') ? '\n' : this.eol });
        add(added);
        out[out.length - 1].eol = '';
        return;
      }
      out.push({ ...l });
      add(added);
    });
    return bom + out.map((l) => l.body + l.eol).join('');
  }
}
