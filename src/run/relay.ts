import { spawn } from 'node:child_process';
import { appendFileSync, type WriteStream } from 'node:fs';
import type { Readable } from 'node:stream';

// "Leave running" must mean it (issue 8 item 4): an agent writes its progress to a pipe whose
// reading end is checkroom's; when checkroom exits, the agent's next write fails (EPIPE or
// SIGPIPE) and kills it. So before checkroom leaves, the pipes are handed to a relay: a
// small detached node process that inherits them and keeps appending the output to the
// run's log, within what is left of the log's cap, until the agent's output ends. The
// next checkroom follows that log. The relay is given as source text (`node -e`) so it
// exists wherever checkroom runs, bundled or not.

const RELAY_SOURCE = `
const fs = require('node:fs');
const net = require('node:net');
const [logPath, roomArg, fdsArg] = process.argv.slice(1);
let room = Number(roomArg) || 0;
let bytes = 0;
let notLogged = 0;
const log = fs.openSync(logPath, 'a');
const line = (t) => { try { fs.writeSync(log, t + '\\n'); } catch {} };
line('[checkroom] relay ' + new Date().toISOString() + ' pid=' + process.pid + ': checkroom left the run running; its output continues below');
let open = 0;
const done = () => {
  if (--open > 0) return;
  if (notLogged > 0) line('\\n[checkroom] log capped: ' + notLogged + ' bytes were not written');
  line('[checkroom] relay end ' + new Date().toISOString() + ' bytes=' + bytes);
  fs.closeSync(log);
  process.exit(0);
};
for (const fd of fdsArg.split(',').map(Number)) {
  open++;
  const s = new net.Socket({ fd, readable: true, writable: false });
  s.on('data', (b) => {
    bytes += b.length;
    const part = b.subarray(0, Math.max(0, Math.min(room, b.length)));
    room -= part.length;
    notLogged += b.length - part.length;
    try { if (part.length > 0) fs.writeSync(log, part); } catch {}
  });
  let ended = false;
  const end = () => { if (!ended) { ended = true; done(); } };
  s.on('end', end);
  s.on('close', end);
  s.on('error', end);
}
`;

/**
 * Hand `streams` (the agent's stdout and stderr, paused, their buffered data already taken)
 * to a detached relay appending to `logPath` at most `room` more bytes. The caller closes
 * its own copies afterwards. The relay's pid, or null when it could not be started.
 */
export function startRelay(streams: Readable[], logPath: string, room: number): number | null {
  if (streams.length === 0) return null;
  // Inherited descriptors start at 3: fd 3 is the first stream, fd 4 the second.
  const fds = streams.map((_, i) => 3 + i);
  try {
    const relay = spawn(process.execPath, ['-e', RELAY_SOURCE, logPath, String(Math.max(0, room)), fds.join(',')], {
      stdio: ['ignore', 'ignore', 'ignore', ...streams],
      detached: true,
    });
    relay.on('error', () => undefined);
    relay.unref();
    return relay.pid ?? null;
  } catch {
    return null;
  }
}

/**
 * Stop reading the agent's output here and hand it to a relay: what this process already
 * received reaches the log first (its log stream is flushed and closed, then whatever the
 * paused streams buffered is appended), then the relay takes the pipes and ours are closed.
 * No event-loop turn passes between taking the buffered data and closing our copies, so
 * nothing is read twice or lost. The relay's pid, or null.
 */
export async function handOver(streams: (Readable | null | undefined)[], log: WriteStream | null, logPath: string, room: number): Promise<number | null> {
  const open = streams.filter((s): s is Readable => !!s && !s.destroyed);
  for (const s of open) {
    s.removeAllListeners('data');
    s.pause();
  }
  if (log && !log.destroyed) await new Promise<void>((resolve) => {
    log.once('error', () => resolve());
    log.end(() => resolve());
  });
  let left = room;
  for (const s of open) {
    for (let chunk = s.read() as Buffer | null; chunk !== null; chunk = s.read() as Buffer | null) {
      const part = chunk.subarray(0, Math.max(0, Math.min(left, chunk.length)));
      left -= part.length;
      try {
        if (part.length > 0) appendFileSync(logPath, part);
      } catch {
        // the log is best effort; the relay says what it could write
      }
    }
  }
  const live = open.filter((s) => !s.readableEnded);
  const relay = startRelay(live, logPath, left);
  for (const s of open) s.destroy();
  return relay;
}
