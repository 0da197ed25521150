import type { FileHandle } from 'node:fs/promises';
import type { JournalEvent, JournalRead } from './journal.js';

// Reading the journal within bounds: line by line from chunks, an oversized
// "line" skipped without keeping it in memory, unreadable lines counted and reported with
// their line numbers (never silently dropped; the file itself is never rewritten), and past
// the size cap only the newest part read.

/** Unreadable lines listed one by one in the warnings; past this many, one summary line
 *  counts the rest, so a journal of garbage cannot flood the Health view or the report. */
export const JOURNAL_WARNINGS_LISTED = 20;

/** A journal line is a few hundred bytes (a long note a few MB at most); a "line" past 8 MB
 *  is not an event and is not kept in memory while it is skipped. Counted
 *  in UTF-16 units, the length of the text that would be held. */
export const JOURNAL_MAX_LINE_BYTES = 8 * 1024 * 1024;

/** Line-by-line parser, fed chunk by chunk so a huge journal never becomes one string. */
export class JournalParser {
  readonly events: JournalEvent[] = [];
  readonly warnings: string[] = [];
  private rest = '';
  /** Length of an oversized line being skipped (its text is not kept), or -1. */
  private skipping = -1;
  private lineNo = 0;
  private unread = 0;
  private firstUnlisted = 0;
  private lastUnlisted = 0;

  /** `validate` is journal.ts's validateEvent, passed in so this file imports no values from it. */
  constructor(
    private readonly validate: (value: unknown) => string | null,
    /** Past the size cap lines are counted from where reading began, and the words say so. */
    private readonly from = 0,
  ) {
  }

  private where(n: number): string {
    return this.from === 0 ? `journal line ${n}` : `journal line ${n} after byte ${this.from}`;
  }

  feed(text: string): void {
    let from = 0;
    for (;;) {
      const nl = text.indexOf('\n', from);
      if (nl < 0) break;
      const piece = text.slice(from, nl);
      if (this.skipping >= 0) this.oversized(this.skipping + piece.length);
      else if (this.rest.length + piece.length > JOURNAL_MAX_LINE_BYTES) this.oversized(this.rest.length + piece.length);
      else this.line(this.rest + piece, false);
      this.rest = '';
      this.skipping = -1;
      from = nl + 1;
    }
    const tail = text.slice(from);
    if (this.skipping >= 0) this.skipping += tail.length;
    else if (this.rest.length + tail.length > JOURNAL_MAX_LINE_BYTES) {
      this.skipping = this.rest.length + tail.length;
      this.rest = '';
    } else this.rest += tail;
  }

  end(): JournalRead {
    // Text after the last newline is a line whose write never finished (kill -9 mid-append),
    // unless it happens to be complete JSON.
    if (this.skipping >= 0) this.oversized(this.skipping);
    else if (this.rest !== '') this.line(this.rest, true);
    this.rest = '';
    this.skipping = -1;
    if (this.unread > JOURNAL_WARNINGS_LISTED) {
      const more = this.unread - JOURNAL_WARNINGS_LISTED;
      this.warnings.push(`${this.from === 0 ? 'journal lines' : `journal lines (after byte ${this.from})`} ${this.firstUnlisted}-${this.lastUnlisted}: ${more} more unreadable line${more === 1 ? '' : 's'}, ignored (kept in the file)`);
    }
    return { events: this.events, warnings: this.warnings };
  }

  /** Every unreadable line is counted; the first ones are listed, the rest summed up at the end. */
  private warn(n: number, message: string): void {
    this.unread++;
    if (this.unread <= JOURNAL_WARNINGS_LISTED) this.warnings.push(message);
    else {
      if (this.firstUnlisted === 0) this.firstUnlisted = n;
      this.lastUnlisted = n;
    }
  }

  private oversized(chars: number): void {
    const n = ++this.lineNo;
    this.warn(n, `${this.where(n)}: ${chars} characters, over the ${JOURNAL_MAX_LINE_BYTES} cap for one event, ignored`);
  }

  private line(raw: string, unterminated: boolean): void {
    const n = ++this.lineNo;
    if (raw.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      this.warn(n, unterminated ? `${this.where(n)}: torn last line (${raw.length} chars), ignored` : `${this.where(n)}: not JSON, ignored`);
      return;
    }
    const problem = this.validate(value);
    if (problem) this.warn(n, `${this.where(n)}: ${problem}, ignored`);
    else this.events.push(value as JournalEvent);
  }
}

export const MB = (n: number): string => `${Math.round(n / 1048576)} MB`;

/** Where reading starts: 0, or the first line that begins inside the last `cap` bytes.
 *  Nothing before the cut is read (a 10 GB journal must not be read to find its tail). */
export const tailStart = async (fh: FileHandle, size: number, cap: number): Promise<number> => {
  if (size <= cap) return 0;
  const buf = Buffer.alloc(64 * 1024);
  let pos = size - cap;
  for (;;) {
    const { bytesRead } = await fh.read(buf, 0, buf.length, pos);
    if (bytesRead === 0) return size;
    const nl = buf.subarray(0, bytesRead).indexOf(0x0a);
    if (nl >= 0) return pos + nl + 1;
    pos += bytesRead;
  }
};
