import { LineRing, LineSplitter, DEFAULT_LINE_CHARS } from './ring-buffer.js';

// One run's output on its way to the screen: the ring buffer of the last lines, and the
// batches for subscribers (the supervisor's line watch, the pane). Lines arrive raw from the
// stream splitters and are formatted (sanitized, bounded) only when read — by a subscriber's
// batch or a look at the ring — so of an agent's flood only the lines that can be on screen
// cost anything (issue 10 item 5: sanitize ran on all 1.26M lines though 1,000 were kept).

export class RunOutput {
  readonly ring: LineRing;
  /** One splitter per stream, so stdout and stderr lines never interleave mid-line. */
  readonly splitters = { out: new LineSplitter({ maxLineChars: DEFAULT_LINE_CHARS }), err: new LineSplitter({ maxLineChars: DEFAULT_LINE_CHARS }) };
  private readonly subscribers = new Set<(line: string) => void>();
  private queuedRaw: string[] = [];
  private queuedDropped: number[] = [];
  private skipped = 0;

  constructor(private readonly ringLines: number) {
    this.ring = new LineRing({ maxLines: ringLines, maxLineChars: DEFAULT_LINE_CHARS });
  }

  /** A line from a splitter's `feed`: kept raw until it is read. */
  readonly raw = (raw: string, dropped: number): void => {
    this.ring.addRaw(raw, dropped);
    if (this.subscribers.size > 0) this.queue(raw, dropped);
  };

  /** A line of our own, already formatted. */
  add(line: string): void {
    this.ring.add(line);
    if (this.subscribers.size > 0) this.queue(line, -1);
  }

  private queue(text: string, dropped: number): void {
    this.queuedRaw.push(text);
    this.queuedDropped.push(dropped);
    // Only the last ringLines lines of a burst can be on screen; count the rest.
    if (this.queuedRaw.length > this.ringLines * 2) {
      this.skipped += this.queuedRaw.length - this.ringLines;
      this.queuedRaw = this.queuedRaw.slice(-this.ringLines);
      this.queuedDropped = this.queuedDropped.slice(-this.ringLines);
    }
  }

  /** Hand the queued lines to the subscribers, formatted, with a note of what a burst skipped. */
  flush(): void {
    if (this.queuedRaw.length === 0 && this.skipped === 0) return;
    const from = Math.max(0, this.queuedRaw.length - this.ringLines);
    const batch = this.skipped > 0 ? [`… [${this.skipped} lines skipped, see the log file]`] : [];
    for (let i = this.skipped > 0 ? from : 0; i < this.queuedRaw.length; i++) {
      const d = this.queuedDropped[i]!;
      batch.push(d < 0 ? this.queuedRaw[i]! : this.ring.format(this.queuedRaw[i]!, d));
    }
    this.queuedRaw = [];
    this.queuedDropped = [];
    this.skipped = 0;
    for (const fn of this.subscribers) for (const line of batch) fn(line);
  }

  subscribe(fn: (line: string) => void): () => void {
    this.subscribers.add(fn);
    return () => {
      this.subscribers.delete(fn);
    };
  }

  /** End of the streams: the unfinished lines become lines. */
  end(): void {
    this.splitters.out.endRaw(this.raw);
    this.splitters.err.endRaw(this.raw);
  }

  /** The ring's lines, then the streams' unfinished lines, within the ring's capacity. */
  lines(): string[] {
    const pending = [this.splitters.out.pending(), this.splitters.err.pending()].filter((l): l is string => l !== null);
    return pending.length === 0 ? this.ring.lines() : [...this.ring.lines(), ...pending].slice(-this.ring.capacity);
  }
}
