import { open } from 'node:fs/promises';
import { journalPath, parseJournal, type JournalEvent } from '../run/journal.js';

// The journal read once and then only what was appended (docs/history.md, Performance): the
// History view follows a 100k-event journal without parsing it again. A torn last line (a write
// in progress) is left for the next read; a journal that shrank (replaced, archived) is read anew.

export interface TailRead {
  events: JournalEvent[];
  warnings: string[];
  /** The file was shorter than what was read before: the caller starts its fold anew. */
  restarted: boolean;
}

const CHUNK = 1 << 20;

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
      const chunks: Buffer[] = [];
      let pos = this.offset;
      const buf = Buffer.alloc(Math.min(CHUNK, Math.max(1, size - pos)));
      while (pos < size) {
        const { bytesRead } = await fh.read(buf, 0, Math.min(buf.length, size - pos), pos);
        if (bytesRead === 0) break;
        chunks.push(Buffer.from(buf.subarray(0, bytesRead)));
        pos += bytesRead;
      }
      const all = Buffer.concat(chunks);
      // Only whole lines: what follows the last newline is still being written.
      const end = all.lastIndexOf(0x0a) + 1;
      if (end === 0) return { events: [], warnings: [], restarted };
      this.offset += end;
      const read = parseJournal(all.subarray(0, end).toString('utf8'));
      return { events: read.events, warnings: read.warnings, restarted };
    } finally {
      await fh.close();
    }
  }
}
