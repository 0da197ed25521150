import { LineRing, LineSplitter, DEFAULT_LINE_CHARS, type LineOptions } from './ring-buffer.js';

// One run's output on its way to the screen: the ring buffer of the last lines, and the
// batches for subscribers (the supervisor's line watch, the pane). Lines arrive raw from the
// stream splitters and are formatted (sanitized, bounded) only when read — by a subscriber's
// batch or a look at the ring — so of an agent's flood only the lines that can be on screen
// cost anything (sanitize ran on all 1.26M lines though 1,000 were kept).
// A line both in a batch and in the ring is formatted once, for both (LineRing.read).

export interface RunOutputOptions {
  /** How a line reads (default: sanitizeLine, terminal-safe). */
  format?: LineOptions['format'];
  /**
   * Whether a burst of more than twice the ring between two flushes reaches subscribers as
   * its last lines and a note of how many were skipped (default: true; the local process
   * group, whose flood arrives as fast as it is written). false: every line reaches them.
   */
  skipBursts?: boolean;
}

export class RunOutput {
  readonly ring: LineRing;
  /** One splitter per stream, so stdout and stderr lines never interleave mid-line. */
  readonly splitters = { out: new LineSplitter({ maxLineChars: DEFAULT_LINE_CHARS }), err: new LineSplitter({ maxLineChars: DEFAULT_LINE_CHARS }) };
  private readonly subscribers = new Set<(line: string) => void>();
  private queuedRaw: string[] = [];
  private queuedDropped: number[] = [];
  private queuedSeq: number[] = [];
  private skipped = 0;
  private readonly skipBursts: boolean;

  constructor(
    private readonly ringLines: number,
    o: RunOutputOptions = {},
  ) {
    this.ring = new LineRing({ maxLines: ringLines, maxLineChars: DEFAULT_LINE_CHARS, format: o.format });
    this.skipBursts = o.skipBursts ?? true;
  }

  /** A line from a splitter's `feed`: kept raw until it is read. */
  readonly raw = (raw: string, dropped: number): void => {
    const seq = this.ring.addRaw(raw, dropped);
    if (this.subscribers.size > 0) this.queue(seq, raw, dropped);
  };

  /** A line of our own, already formatted. */
  add(line: string): void {
    const seq = this.ring.add(line);
    if (this.subscribers.size > 0) this.queue(seq, line, -1);
  }

  private queue(seq: number, text: string, dropped: number): void {
    this.queuedRaw.push(text);
    this.queuedDropped.push(dropped);
    this.queuedSeq.push(seq);
    // Only the last ringLines lines of a burst can be on screen; count the rest.
    if (this.skipBursts && this.queuedRaw.length > this.ringLines * 2) {
      this.skipped += this.queuedRaw.length - this.ringLines;
      this.queuedRaw = this.queuedRaw.slice(-this.ringLines);
      this.queuedDropped = this.queuedDropped.slice(-this.ringLines);
      this.queuedSeq = this.queuedSeq.slice(-this.ringLines);
    }
  }

  /** Hand the queued lines to the subscribers, formatted, with a note of what a burst skipped. */
  flush(): void {
    if (this.queuedRaw.length === 0 && this.skipped === 0) return;
    // After a skip only the last ringLines lines go; those cut here are counted too.
    const from = this.skipped > 0 ? Math.max(0, this.queuedRaw.length - this.ringLines) : 0;
    const batch = this.skipped > 0 ? [`… [${this.skipped + from} lines skipped, see the log file]`] : [];
    for (let i = from; i < this.queuedRaw.length; i++) batch.push(this.ring.read(this.queuedSeq[i]!, this.queuedRaw[i]!, this.queuedDropped[i]!));
    this.queuedRaw = [];
    this.queuedDropped = [];
    this.queuedSeq = [];
    this.skipped = 0;
    for (const fn of this.subscribers) for (const line of batch) fn(line);
  }

  /**
   * Every line from the run's start: the ring's lines so far, then each new one. A quick
   * agent's whole output can come before the supervisor subscribes (it journals the launch
   * first); without the replay its lines reached no watch and no log pane (seen in CI: an
   * EACCES run's pane said "no output yet" with the error in its log). Lines queued for the
   * subscribers already here go to them first, so the new one gets each line once.
   */
  subscribe(fn: (line: string) => void): () => void {
    this.flush();
    for (const line of this.ring.lines()) fn(line);
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
