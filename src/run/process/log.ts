import { appendFileSync, createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { dirname } from 'node:path';
import type { Readable } from 'node:stream';

// One attempt's log file (.checkroom/runs/<run-id>.log): a header, the agent's raw bytes, a
// footer. A flooding agent must not fill the disk: the log keeps the first `max` bytes of
// output, then only counts; at the end the ring buffer's last lines follow a note of what was
// left out. A log that cannot be written never stops the run (the note says so instead).

/** Output bytes one attempt's log keeps before it is capped. */
export const DEFAULT_LOG_MAX = 64 * 1024 * 1024;

const open = (path: string): { stream: WriteStream | null; error: string | null } => {
  try {
    mkdirSync(dirname(path), { recursive: true });
    return { stream: createWriteStream(path, { flags: 'a' }), error: null };
  } catch (err) {
    return { stream: null, error: (err as Error).message };
  }
};

export class RunLog {
  readonly stream: WriteStream | null;
  /** Why the log is incomplete, once it is. */
  broken: string | null;
  /** Output bytes offered, logged or not. */
  bytes = 0;
  private logged = 0;
  private notLogged = 0;
  private endsWithNewline = true;
  // Streams paused for backpressure; a failed log must not leave them paused forever.
  private readonly paused = new Set<Readable>();
  /** The run's keeper appends the output itself (relay.ts): here it is only counted. */
  keeperWrites = false;

  constructor(
    readonly path: string,
    readonly max: number,
    note: (text: string) => void,
  ) {
    const { stream, error } = open(path);
    this.stream = stream;
    this.broken = error;
    if (error) note(`cannot write log ${path}: ${error}`);
    stream?.on('error', (err) => {
      if (!this.broken) note(`cannot write log ${path}: ${err.message}`);
      this.broken = err.message;
      for (const s of this.paused) s.resume();
      this.paused.clear();
    });
  }

  /** Bytes of output the log still has room for (what a relay may append after a leave). */
  get room(): number {
    return Math.max(0, this.max - this.logged);
  }

  write(text: string | Buffer): void {
    if (this.stream && !this.broken) this.stream.write(text);
  }

  /** Written before this call returns: the header, before the keeper appends anything. False when it failed. */
  writeNow(text: string): boolean {
    if (this.broken) return false;
    try {
      appendFileSync(this.path, text);
      return true;
    } catch {
      return false;
    }
  }

  /** A chunk of the agent's output, from `from`: logged while there is room. */
  take(chunk: Buffer, from: Readable): void {
    this.bytes += chunk.length;
    this.endsWithNewline = chunk[chunk.length - 1] === 10;
    const part = this.room >= chunk.length ? chunk : chunk.subarray(0, this.room);
    this.logged += part.length;
    this.notLogged += chunk.length - part.length;
    const log = this.stream;
    // Backpressure: a fast flood must not pile up in the log stream's memory.
    if (part.length > 0 && log && !this.broken && !this.keeperWrites && !log.write(part)) {
      from.pause();
      this.paused.add(from);
      log.once('drain', () => {
        this.paused.delete(from);
        from.resume();
      });
    }
  }

  /** After a cap, the last lines (sanitized) go at the end, so the tail is never lost. */
  writeCapped(tail: string[]): void {
    if (this.notLogged === 0) return;
    this.write(
      `\n[checkroom] log capped at ${this.max} bytes of output: ${this.notLogged} bytes were not written; the last ${tail.length} lines (sanitized) follow\n${tail.join('\n')}\n`,
    );
    this.endsWithNewline = true;
  }

  /** The footer gets its own line even when the agent's last line had no newline. */
  writeFooter(line: string): void {
    this.write(`${this.endsWithNewline ? '' : '\n'}${line}\n`);
  }

  close(): Promise<void> {
    const log = this.stream;
    if (!log || log.destroyed) return Promise.resolve();
    return new Promise<void>((resolve) => {
      log.once('error', () => resolve());
      log.end(() => resolve());
    });
  }
}
