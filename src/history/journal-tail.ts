import { open } from 'node:fs/promises';
import { journalPath, parseJournal, type JournalEvent } from '../run/journal/journal.js';

// The journal read once and then only what was appended (docs/history.md, Performance): the
// History view follows a 100k-event journal without parsing it again. A torn last line (a write
// in progress) is left for the next read; a journal that shrank (replaced, archived) is read
// anew. The first read of a long journal parses a megabyte at a time and yields between, so
// the control room keeps drawing and reading keys while History loads.

export interface TailRead {
  events: JournalEvent[];
  warnings: string[];
  /** The file was shorter than what was read before: the caller starts its fold anew. */
  restarted: boolean;
}

const CHUNK = 1 << 20;

const yieldTurn = (): Promise<void> => new Promise((r) => setImmediate(r));

export class JournalTail {
  private offset = 0;

  constructor(private readonly root: string) {}

  async read(): Promise<TailRead> {
    let fh;
    try {
      fh = await open(journalPath(this.root), 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { events: [], warnings: [], restarted: false };
      throw err;
    }
    try {
      const size = (await fh.stat()).size;
      const restarted = size < this.offset;
      if (restarted) this.offset = 0;
      const events: JournalEvent[] = [];
      const warnings: string[] = [];
      const buf = Buffer.alloc(Math.min(CHUNK, Math.max(1, size - this.offset)));
      let carry: Buffer = Buffer.alloc(0);
      let pos = this.offset;
      while (pos < size) {
        const { bytesRead } = await fh.read(buf, 0, Math.min(buf.length, size - pos), pos);
        if (bytesRead === 0) break;
        pos += bytesRead;
        const piece = carry.length ? Buffer.concat([carry, buf.subarray(0, bytesRead)]) : buf.subarray(0, bytesRead);
        // Only whole lines: what follows the last newline waits for the next chunk (or read).
        const end = piece.lastIndexOf(0x0a) + 1;
        carry = Buffer.from(piece.subarray(end));
        if (end === 0) continue;
        this.offset += end;
        const read = parseJournal(piece.subarray(0, end).toString('utf8'));
        for (const e of read.events) events.push(e);
        warnings.push(...read.warnings);
        if (pos < size) await yieldTurn();
      }
      return { events, warnings, restarted };
    } finally {
      await fh.close();
    }
  }
}
