import { closeSync, fstatSync, read } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Confine } from '../../scan/confine.js';

// The last lines of a file, for the cell detail and the partial preview: read on demand
// (the last ~4 KB, never the whole file), decoded, split into lines, kept raw: the views
// escape them where they are drawn (components/Styled.tsx). Opened the
// way the scan opens artifacts: a symlink out of the workspace is not read
// or quoted, and a FIFO under an artifact's name cannot block the read.

export const TAIL_READ_BYTES = 4096;
const readAt = promisify(read);

export interface Tail {
  lines: string[];
  /** The file is longer than what was read: the first line shown may be cut. */
  cut: boolean;
}

/** `confine`: the workspace (and checkroom.yaml's outside_roots) the file must resolve into. */
export async function readTail(abs: string, confine: Confine, bytes = TAIL_READ_BYTES): Promise<Tail> {
  const fd = confine.open(abs);
  if (typeof fd !== 'number') throw new Error(fd.refused);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new Error('not a regular file');
    const size = st.size;
    const start = Math.max(0, size - bytes);
    const buf = Buffer.alloc(size - start);
    await readAt(fd, buf, 0, buf.length, start);
    let text = buf.toString('utf8');
    let lines = text.split('\n');
    // Starting mid-file means the first line (and maybe a UTF-8 sequence) is cut: drop it.
    if (start > 0 && lines.length > 1) lines = lines.slice(1);
    // CRLF endings are benign; a lone CR (an overwrite trick) stays and is shown escaped.
    text = lines.join('\n').replace(/\r\n/g, '\n').replace(/\n+$/, '');
    return { lines: text === '' ? [] : text.split('\n'), cut: start > 0 };
  } finally {
    closeSync(fd);
  }
}

/** A tail as a view shows it: the lines, or why there are none. */
export interface TailRead {
  tail: Tail | null;
  note: string | null;
}

/**
 * The one reader of a workspace file's tail, for the cell detail (store.ts) and the partial
 * preview (hooks/use-file-tail.ts), so both confine and word a failure alike.
 * `outside`: checkroom.yaml's outside_roots. Never rejects: a failure is the note.
 */
export const readWorkspaceTail = (root: string, rel: string, outside?: readonly string[]): Promise<TailRead> =>
  readTail(join(root, rel), new Confine(root, outside)).then(
    (tail) => ({ tail, note: null }),
    (err: Error) => ({ tail: null, note: `cannot read: ${err.message}` }),
  );
