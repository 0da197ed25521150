import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { LineRing } from './ring-buffer.js';

// A run's log (.checkroom/runs/<run>.log) read from the disk, for runs this process did not
// start: an adopted run or the driver's run seen by an observer.
// Reads are bounded: the first look takes only the last `tailBytes`, later looks only what
// was appended since, a chunk at a time, so a flooding agent never makes a read unbounded.

export const LOG_TAIL_BYTES = 64 * 1024;
const CHUNK = 256 * 1024;

export interface LogFollower {
  /** Read what was appended since the last call; the lines it completed (sanitized, bounded). */
  poll(): string[];
  /** Ring-buffer lines, oldest first (with the unfinished line). */
  lines(): string[];
  /** Bytes read so far (growth is a liveness signal). */
  readonly bytes: number;
}

export function followLog(path: string, o: { tailBytes?: number; ringLines?: number } = {}): LogFollower {
  const ring = new LineRing({ maxLines: o.ringLines ?? 1000 });
  const decoder = new StringDecoder('utf8');
  let offset: number | null = null;
  let bytes = 0;

  const poll = (): string[] => {
    let fd: number;
    try {
      fd = openSync(path, 'r');
    } catch {
      return [];
    }
    const done: string[] = [];
    try {
      const size = fstatSync(fd).size;
      if (offset === null) {
        // First look: the tail only, starting after a line break so no line is shown cut.
        offset = Math.max(0, size - (o.tailBytes ?? LOG_TAIL_BYTES));
        if (offset > 0) offset += skipToLine(fd, offset, size);
      }
      if (size < offset) offset = size; // truncated under us: follow from its new end
      const buf = Buffer.alloc(Math.min(CHUNK, Math.max(1, size - offset)));
      // At most 4 chunks per look: a flood is caught up over several looks, never in one read.
      for (let n = 0; n < 4 && offset < size; n++) {
        const got = readSync(fd, buf, 0, Math.min(buf.length, size - offset), offset);
        if (got <= 0) break;
        offset += got;
        bytes += got;
        done.push(...ring.push(decoder.write(buf.subarray(0, got))));
      }
    } finally {
      closeSync(fd);
    }
    return done;
  };

  return {
    poll,
    lines: () => ring.lines(),
    get bytes() {
      return bytes;
    },
  };
}

// Bytes from `from` to just after the next newline (at most 4 KiB looked at).
const skipToLine = (fd: number, from: number, size: number): number => {
  const buf = Buffer.alloc(Math.min(4096, size - from));
  const got = readSync(fd, buf, 0, buf.length, from);
  const nl = buf.subarray(0, got).indexOf(0x0a);
  return nl < 0 ? 0 : nl + 1;
};
