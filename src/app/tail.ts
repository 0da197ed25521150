import { open } from 'node:fs/promises';
import { sanitize } from '../sanitize.js';

// The last lines of a file, for the cell detail and the partial preview: read on demand
// (the last ~4 KB, never the whole file), decoded, sanitized, split into lines.

export const TAIL_READ_BYTES = 4096;

export interface Tail {
  lines: string[];
  /** The file is longer than what was read: the first line shown may be cut. */
  cut: boolean;
}

export async function readTail(abs: string, bytes = TAIL_READ_BYTES): Promise<Tail> {
  const fh = await open(abs, 'r');
  try {
    const { size } = await fh.stat();
    const start = Math.max(0, size - bytes);
    const buf = Buffer.alloc(size - start);
    await fh.read(buf, 0, buf.length, start);
    let text = buf.toString('utf8');
    let lines = text.split('\n');
    // Starting mid-file means the first line (and maybe a UTF-8 sequence) is cut: drop it.
    if (start > 0 && lines.length > 1) lines = lines.slice(1);
    // CRLF endings are benign; a lone CR (an overwrite trick) stays and is shown escaped.
    text = lines.join('\n').replace(/\r\n/g, '\n').replace(/\n+$/, '');
    return { lines: text === '' ? [] : sanitize(text).split('\n'), cut: start > 0 };
  } finally {
    await fh.close();
  }
}
