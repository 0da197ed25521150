import { sanitizeLine } from '../../text/sanitize.js';

// Agent output can be a flood (50 MB in seconds) or one endless line with no newline; the
// log pane must stay bounded either way (STYLE.md idiom 5; process-compose keeps 1,000
// lines). The full bytes go to the run's log file; memory keeps only the tail.

export const DEFAULT_RING_LINES = 1000;
export const DEFAULT_LINE_CHARS = 2000;

export interface LineOptions {
  /** Most characters kept of one line, before the truncation suffix. */
  maxLineChars?: number;
  /** Applied to each finished line before it is stored; default: sanitizeLine (terminal-safe). */
  format?: (line: string) => string;
}

export const truncationSuffix = (dropped: number): string => `… [truncated ${dropped} chars]`;

// Cut at `max` code units without splitting a surrogate pair.
const cut = (s: string, max: number): string => {
  if (s.length <= max) return s;
  const end = max > 0 && /[\uD800-\uDBFF]/.test(s[max - 1]!) ? max - 1 : max;
  return s.slice(0, end);
};

/** A finished line as it came: the kept text and how many characters were cut from it. */
export type RawLineSink = (raw: string, dropped: number) => void;

/**
 * The line as shown: formatted, then bounded again, since formatting may lengthen it (an ESC
 * shows as "\e"), with the truncation suffix when anything was cut.
 */
export function renderLine(raw: string, dropped: number, max: number, format: (line: string) => string): string {
  const shown = format(raw);
  const kept = cut(shown, max);
  const total = dropped + (shown.length - kept.length);
  return total > 0 ? kept + truncationSuffix(total) : kept;
}

/**
 * Splits a stream of text chunks into lines. The unfinished line is held only up to
 * maxLineChars; the rest is counted, not stored, so a line without end cannot grow memory.
 */
export class LineSplitter {
  private partial = '';
  private dropped = 0;
  readonly max: number;
  readonly format: (line: string) => string;

  constructor(opts: LineOptions = {}) {
    this.max = Math.max(1, opts.maxLineChars ?? DEFAULT_LINE_CHARS);
    this.format = opts.format ?? sanitizeLine;
  }

  /** Feed a chunk; returns the lines it completed, formatted and bounded. */
  push(chunk: string): string[] {
    const done: string[] = [];
    this.feed(chunk, (raw, dropped) => done.push(this.render(raw, dropped)));
    return done;
  }

  /**
   * Feed a chunk; the lines it completes go to `sink` bounded but not formatted (of a flood only the lines that are read need formatting; see LineRing.addRaw).
   */
  feed(chunk: string, sink: RawLineSink): void {
    let from = 0;
    for (;;) {
      const nl = chunk.indexOf('\n', from);
      const piece = nl < 0 ? chunk.slice(from) : chunk.slice(from, nl);
      this.take(piece);
      if (nl < 0) break;
      this.finish(sink);
      from = nl + 1;
    }
  }

  /** End of stream: the unfinished line, if any, becomes a line. */
  end(): string | null {
    let last: string | null = null;
    this.endRaw((raw, dropped) => (last = this.render(raw, dropped)));
    return last;
  }

  /** End of stream, unformatted: the unfinished line, if any, goes to `sink`. */
  endRaw(sink: RawLineSink): void {
    if (this.partial !== '' || this.dropped !== 0) this.finish(sink);
  }

  /** The unfinished line as it would display now (e.g. a progress bar without newline). */
  pending(): string | null {
    if (this.partial === '' && this.dropped === 0) return null;
    return this.render(this.partial, this.dropped);
  }

  private take(piece: string): void {
    const room = this.max - this.partial.length;
    if (piece.length <= room) {
      this.partial += piece;
    } else {
      const kept = cut(piece, Math.max(0, room));
      this.partial += kept;
      this.dropped += piece.length - kept.length;
    }
  }

  private finish(sink: RawLineSink): void {
    // CRLF output would otherwise show a trailing "\r" escape on every line.
    const raw = this.partial.endsWith('\r') && this.dropped === 0 ? this.partial.slice(0, -1) : this.partial;
    const dropped = this.dropped;
    this.partial = '';
    this.dropped = 0;
    sink(raw, dropped);
  }

  render(raw: string, dropped: number): string {
    return renderLine(raw, dropped, this.max, this.format);
  }
}

// A slot's `dropped` when it holds a line that is already formatted.
const FORMATTED = -1;

/**
 * Fixed-capacity store of the last N lines (circular, so a flood costs no array shifting).
 * Lines may be stored raw (addRaw) and are then formatted when first read: a flood of a
 * million lines keeps 1,000, and only those that are read are ever sanitized. Every read
 * returns formatted text.
 */
export class LineRing {
  private readonly raw: string[];
  private readonly dropped: Int32Array;
  private readonly shown: (string | undefined)[];
  private start = 0;
  private count = 0;
  /** Lines stored so far: the next line's sequence number. */
  private stored = 0;
  private readonly splitter: LineSplitter;
  readonly capacity: number;

  constructor(opts: LineOptions & { maxLines?: number } = {}) {
    this.capacity = Math.max(1, opts.maxLines ?? DEFAULT_RING_LINES);
    this.raw = new Array<string>(this.capacity);
    this.dropped = new Int32Array(this.capacity);
    this.shown = new Array<string | undefined>(this.capacity);
    this.splitter = new LineSplitter(opts);
  }

  /** Feed raw text; returns the lines completed by this chunk (already formatted). */
  push(chunk: string): string[] {
    const done = this.splitter.push(chunk);
    for (const line of done) this.add(line);
    return done;
  }

  /** Flush the unfinished line of the built-in splitter. */
  end(): string | null {
    const last = this.splitter.end();
    if (last !== null) this.add(last);
    return last;
  }

  /** Store an already formatted line (from an external splitter, e.g. one per stream). Its sequence number. */
  add(line: string): number {
    return this.store(line, FORMATTED);
  }

  /**
   * Store a line as a splitter's `feed` gave it; it is formatted with this ring's options when
   * read. Its sequence number, for `read`.
   */
  addRaw(raw: string, dropped: number): number {
    return this.store(raw, dropped);
  }

  /** How a raw line reads, formatted with this ring's options. */
  format(raw: string, dropped: number): string {
    return this.splitter.render(raw, dropped);
  }

  /**
   * Line `seq` (as `add`/`addRaw` returned it, with the text and count given then) formatted:
   * while the ring still holds it, formatted once and kept for `lines()` — a subscriber's
   * batch and the pane then share one formatting of each line.
   */
  read(seq: number, text: string, dropped: number): string {
    if (dropped === FORMATTED) return text;
    const oldest = this.stored - this.count;
    if (seq < oldest || seq >= this.stored) return this.format(text, dropped);
    const at = (this.start + (seq - oldest)) % this.capacity;
    return (this.shown[at] ??= this.format(this.raw[at]!, this.dropped[at]!));
  }

  private store(text: string, dropped: number): number {
    const at = (this.start + this.count) % this.capacity;
    this.raw[at] = text;
    this.dropped[at] = dropped;
    this.shown[at] = dropped === FORMATTED ? text : undefined;
    if (this.count < this.capacity) this.count += 1;
    else this.start = (this.start + 1) % this.capacity;
    return this.stored++;
  }

  get size(): number {
    return this.count;
  }

  /** Oldest first; includes the built-in splitter's unfinished line, still within capacity. */
  lines(): string[] {
    const out: string[] = [];
    for (let i = 0; i < this.count; i++) {
      const at = (this.start + i) % this.capacity;
      // Formatted once, on the first read: the pane reads the ring every few hundred ms.
      out.push((this.shown[at] ??= this.format(this.raw[at]!, this.dropped[at]!)));
    }
    const pending = this.splitter.pending();
    if (pending !== null) {
      out.push(pending);
      if (out.length > this.capacity) out.shift();
    }
    return out;
  }
}
