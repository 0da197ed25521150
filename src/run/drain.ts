import { spawn } from 'node:child_process';
import type { Readable } from 'node:stream';

// "Leave running" (issue 8 item 4). An agent's stdout and stderr are pipes into this
// checkroom; once it exits, the agent's next write gets EPIPE (or SIGPIPE) and the agent
// dies — "leave running" would kill it after all. So before leaving, the read ends go to a
// small detached drain process that keeps appending the output to the run's log (up to the
// log's remaining cap) until the agent's whole group has closed them. The next checkroom
// adopts the run and follows that log (log-follow.ts).

// Runs as `node -e`: no file to find next to a bundled binary. fd 3 and 4 are the pipes.
const DRAIN = `
const fs = require('node:fs');
const [log, cap] = process.argv.slice(-2);
let room = Number(cap) || 0, skipped = 0, open = 2;
const out = fs.openSync(log, 'a');
const end = () => {
  if (--open > 0) return;
  if (skipped > 0) fs.writeSync(out, '\\n[checkroom] log capped: ' + skipped + ' bytes of output after the hand-off were not written\\n');
  fs.closeSync(out);
};
for (const fd of [3, 4]) {
  // A socket, not fs.createReadStream: the pipe is non-blocking (EAGAIN for fs reads).
  const s = new (require('node:net').Socket)({ fd, readable: true, writable: false });
  s.on('data', (c) => {
    const n = Math.max(0, Math.min(room, c.length));
    if (n > 0) fs.writeSync(out, c.subarray(0, n));
    room -= n;
    skipped += c.length - n;
  });
  s.on('error', () => undefined);
  s.on('close', end);
}
`;

/**
 * Give `out` and `err` (the agent's pipes, read here so far) to a detached drain appending to
 * `logPath`, at most `roomBytes` more. This process stops reading them. False if it could not.
 */
export function handOffOutput(out: Readable | null | undefined, err: Readable | null | undefined, logPath: string, roomBytes: number): boolean {
  if (!out || !err || out.destroyed || err.destroyed) return false;
  try {
    const drain = spawn(process.execPath, ['-e', DRAIN, 'checkroom-drain', logPath, String(Math.max(0, roomBytes))], {
      detached: true,
      stdio: ['ignore', 'ignore', 'ignore', out as never, err as never],
    });
    drain.on('error', () => undefined);
    drain.unref();
  } catch {
    return false;
  }
  // The drain holds its own copies of the pipes: ours are closed, and no byte is read twice.
  out.destroy();
  err.destroy();
  return true;
}
