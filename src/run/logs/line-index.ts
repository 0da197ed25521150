import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

// One attempt's log read in bounded windows (docs/logs.md, "Reading a log"): line starts are
// found lazily, a chunk at a time, only as far as a reader asks, and a line is read for
// display capped at LINE_READ_BYTES. A 200 MB log opens at the cost of its first window; the
// index is 8 bytes a line, never the text. The file is opened per read, so a log pruned or
// rotated under a reader is a read error, not a held descriptor.

/** Bytes of one line read for display; the rest is counted, not read. */
export const LINE_READ_BYTES = 64 * 1024;
const CHUNK = 1 << 20;

export class LogIndex {
  private starts = new Float64Array(1024);
  private count = 1; // starts[0] = 0
  /** Bytes scanned for newlines so far. */
  private scanned = 0;
  private size = 0;

  constructor(readonly path: string) {
    this.refresh();
  }

  /** Look at the file's size again (follow): returns true when it grew. A shrunk file is indexed anew. */
  refresh(): boolean {
    const before = this.size;
    this.size = this.stat();
    if (this.size < this.scanned) {
      this.count = 1;
      this.scanned = 0;
    }
    return this.size > before;
  }

  get bytes(): number {
    return this.size;
  }

  /** Whether every line start is known. */
  get complete(): boolean {
    return this.scanned >= this.size;
  }

  /** Lines known so far (all of them once `complete`); a last line without a newline counts. */
  get knownLines(): number {
    const last = this.starts[this.count - 1]!;
    return this.complete && last >= this.size ? this.count - 1 : this.count;
  }

  /** Index until line `n` is known (or the file ends). */
  ensure(n: number): void {
    while (this.count <= n + 1 && !this.complete) this.scan(CHUNK);
  }

  /** Index the whole file (G, follow, the error jump, a search backwards). */
  ensureAll(): number {
    while (!this.complete) this.scan(CHUNK);
    return this.knownLines;
  }

  /** Up to `count` lines from line `from`, each cut at LINE_READ_BYTES (a cut line ends with a note). */
  read(from: number, count: number): string[] {
    this.ensure(from + count);
    const out: string[] = [];
    const end = Math.min(this.knownLines, from + count);
    if (from >= end) return out;
    const fd = openSync(this.path, 'r');
    try {
      const buf = Buffer.alloc(LINE_READ_BYTES);
      for (let i = Math.max(0, from); i < end; i++) {
        const start = this.starts[i]!;
        const stop = i + 1 < this.count ? this.starts[i + 1]! - 1 : this.scanned;
        const len = Math.max(0, stop - start);
        const got = readSync(fd, buf, 0, Math.min(len, buf.length), start);
        let text = buf.toString('utf8', 0, got);
        if (text.endsWith('\r')) text = text.slice(0, -1);
        out.push(len > buf.length ? `${text} … [${len - buf.length} more bytes in the log]` : text);
      }
    } finally {
      closeSync(fd);
    }
    return out;
  }

  private stat(): number {
    const fd = openSync(this.path, 'r');
    try {
      return fstatSync(fd).size;
    } finally {
      closeSync(fd);
    }
  }

  private scan(max: number): void {
    const fd = openSync(this.path, 'r');
    try {
      const buf = Buffer.alloc(Math.min(max, this.size - this.scanned));
      const got = readSync(fd, buf, 0, buf.length, this.scanned);
      if (got <= 0) {
        this.scanned = this.size;
        return;
      }
      let at = buf.indexOf(0x0a, 0);
      while (at >= 0 && at < got) {
        this.push(this.scanned + at + 1);
        at = buf.indexOf(0x0a, at + 1);
      }
      this.scanned += got;
    } finally {
      closeSync(fd);
    }
  }

  private push(offset: number): void {
    if (this.count === this.starts.length) {
      const grown = new Float64Array(this.starts.length * 2);
      grown.set(this.starts);
      this.starts = grown;
    }
    this.starts[this.count++] = offset;
  }
}
