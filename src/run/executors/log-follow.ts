import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';

// Follow a file another machine appends to (a job's log on the shared filesystem): read what
// was added since the last look. Polled, never watched: inotify does not see writes made by
// other NFS clients (CHECKROOM_WATCH=poll is the same choice for the views).

export class LogFollower {
  private offset: number;
  private readonly decoder = new StringDecoder('utf8');
  /** Bytes read so far. */
  bytes = 0;

  constructor(
    private readonly path: string,
    /** Start here; adopting a run starts near the end so the pane shows its recent lines. */
    from = 0,
  ) {
    this.offset = from;
  }

  /** Size of the file now, or -1 when it does not exist. */
  size(): number {
    try {
      return statSync(this.path).size;
    } catch {
      return -1;
    }
  }

  /** Text appended since the last call ('' when none), bounded per call. */
  read(max = 1 << 20): string {
    const size = this.size();
    if (size < 0) return '';
    if (size < this.offset) this.offset = 0; // truncated or replaced: start over
    if (size === this.offset) return '';
    let fd: number;
    try {
      fd = openSync(this.path, 'r');
    } catch {
      return '';
    }
    try {
      const buf = Buffer.alloc(Math.min(max, size - this.offset));
      const n = readSync(fd, buf, 0, buf.length, this.offset);
      this.offset += n;
      this.bytes += n;
      return this.decoder.write(buf.subarray(0, n));
    } finally {
      closeSync(fd);
    }
  }
}

/** Where to start following to show roughly the last `keep` bytes of a file. */
export const tailOffset = (path: string, keep = 256 * 1024): number => {
  try {
    return Math.max(0, statSync(path).size - keep);
  } catch {
    return 0;
  }
};
