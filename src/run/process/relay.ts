import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, type WriteStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { procStartTime, untilExeced } from './proc.js';
import { knownSecrets } from '../../text/redact.js';

// Every local run now has its relay from the start (keepOutput, mode
// `keep`), so checkroom dying — kill -9, OOM, a crash — never breaks an agent's pipes either.
// handOver remains for a run that had to be read in-process (no keeper could be started).
//
// "Leave running" must mean it: an agent writes its progress to a pipe whose
// reading end is checkroom's; when checkroom exits, the agent's next write fails (EPIPE or
// SIGPIPE) and kills it. So before checkroom leaves, the pipes are handed to a relay: a
// small detached node process that inherits them and keeps appending the output to the
// run's log, within what is left of the log's cap, until the agent's output ends. The
// next checkroom follows that log. The relay is given as source text (`node -e`) so it
// exists wherever checkroom runs, bundled or not.

const RELAY_SOURCE = `
const fs = require('node:fs');
const net = require('node:net');
const [logPath, roomArg, fdsArg, mode] = process.argv.slice(1);
// keep: the keeper of a run from its start; every byte also goes back to checkroom on our
// stdout (agent stdout) and stderr (agent stderr) while checkroom reads them.
const keep = mode === 'keep';
let room = Number(roomArg) || 0;
let bytes = 0;
let notLogged = 0;
const log = fs.openSync(logPath, 'a');
// Known secret values (CHECKROOM_REDACT, base64 JSON, in the environment, never argv) become
// [secret] in the log; each stream holds back what could be the start of one until more comes.
let secrets = [];
try { secrets = JSON.parse(Buffer.from(process.env.CHECKROOM_REDACT || '', 'base64').toString() || '[]').map((v) => Buffer.from(String(v)).toString('latin1')); } catch {}
delete process.env.CHECKROOM_REDACT;
const holdBack = secrets.reduce((m, v) => Math.max(m, v.length - 1), 0);
const carry = [];
const redacted = (i, b, last) => {
  if (secrets.length === 0) return b;
  let t = (carry[i] || '') + b.toString('latin1');
  for (const v of secrets) t = t.split(v).join('[secret]');
  const cut = last ? t.length : Math.max(0, t.length - holdBack);
  carry[i] = t.slice(cut);
  return Buffer.from(t.slice(0, cut), 'latin1');
};
const line = (t) => { try { fs.writeSync(log, t + '\\n'); } catch {} };
if (!keep) line('[checkroom] relay ' + new Date().toISOString() + ' pid=' + process.pid + ': checkroom left the run running; its output continues below');
const sources = [];
const tees = keep ? [1, 2].map((fd) => new net.Socket({ fd, readable: false, writable: true })) : [];
let teeing = keep;
// checkroom gone (killed, crashed, or it left the run): the log alone from here, said in it.
let finished = false;
const dropTee = () => {
  if (!teeing || finished) return;
  teeing = false;
  line('\\n[checkroom] keeper ' + new Date().toISOString() + ' pid=' + process.pid + ': checkroom left the run running (it quit leaving it, lost its terminal, or died); its output continues below');
  for (const t of tees) t.destroy();
  for (const s of sources) s.resume();
};
for (const t of tees) { t.on('error', dropTee); t.on('close', dropTee); }
let open = 0;
const done = () => {
  if (--open > 0) return;
  finished = true;
  if (notLogged > 0 && !teeing) line('\\n[checkroom] log capped: ' + notLogged + ' bytes were not written');
  if (!teeing) line('[checkroom] relay end ' + new Date().toISOString() + ' bytes=' + bytes);
  fs.closeSync(log);
  if (!teeing) process.exit(0);
  let n = tees.length;
  for (const t of tees) t.end(() => { if (--n === 0) process.exit(0); });
};
fdsArg.split(',').map(Number).forEach((fd, i) => {
  open++;
  const s = new net.Socket({ fd, readable: true, writable: false });
  sources.push(s);
  const write = (w) => {
    const part = w.subarray(0, Math.max(0, Math.min(room, w.length)));
    room -= part.length;
    notLogged += w.length - part.length;
    try { if (part.length > 0) fs.writeSync(log, part); } catch {}
  };
  s.on('data', (b) => {
    bytes += b.length;
    write(redacted(i, b, false));
    // Backpressure as when checkroom read the pipes itself: a slow reader slows the agent.
    if (teeing && !tees[i].write(b)) { s.pause(); tees[i].once('drain', () => s.resume()); }
  });
  let ended = false;
  const end = () => { if (!ended) { ended = true; write(redacted(i, Buffer.alloc(0), true)); done(); } };
  s.on('end', end);
  s.on('close', end);
  s.on('error', end);
});
// keep: say we read the pipes now (node's start-up is not the agent's silence: watchdog.ts).
if (keep) { const r = new net.Socket({ fd: 3 + open, readable: false, writable: true }); r.on('error', () => {}); r.end('1'); }
`;

/** `left`: handed over when checkroom leaves (it says so in the log); `keep`: the keeper of a run from its start (silent). */
export type RelayMode = 'left' | 'keep';

export interface Relay {
  pid: number;
  /** Its /proc start time, so a later checkroom tells it from a recycled pid. */
  procStart: number | null;
  /** Settles when the relay exits: the agent's output ended and all of it is in the log. */
  ended: Promise<void>;
  /** Settles once the relay reads the pipes (or ended): before that, the agent's silence is the relay's start-up. */
  ready: Promise<void>;
  /** Mode `keep`: the agent's stdout and stderr as the keeper passes them on (null in mode `left`). */
  out: Readable | null;
  err: Readable | null;
}

/**
 * Hand `streams` (the agent's stdout and stderr, paused, their buffered data already taken)
 * to a detached relay appending to `logPath` at most `room` more bytes. The caller closes
 * its own copies afterwards. The relay's pid, or null when it could not be started.
 */
export function startRelay(streams: Readable[], logPath: string, room: number, mode: RelayMode = 'left'): Relay | null {
  if (streams.length === 0) return null;
  // Inherited descriptors start at 3: fd 3 is the first stream, fd 4 the second.
  const fds = streams.map((_, i) => 3 + i);
  try {
    const keep = mode === 'keep';
    const tee = keep ? 'pipe' : 'ignore';
    const secrets = knownSecrets();
    const start = (): ChildProcess => {
      const child = spawn(process.execPath, ['-e', RELAY_SOURCE, logPath, String(Math.max(0, room)), fds.join(','), mode], {
        stdio: ['ignore', tee, tee, ...streams, ...(keep ? ['pipe' as const] : [])],
        detached: true,
        // The values it redacts go by the environment: a command line is world-readable (/proc/<pid>/cmdline).
        ...(secrets.length ? { env: { ...process.env, CHECKROOM_REDACT: Buffer.from(JSON.stringify(secrets)).toString('base64') } } : {}),
      });
      child.on('error', () => undefined);
      return child;
    };
    // A keeper killed before its exec (a hang-up's signal to our group) never held the pipes,
    // which we still hold: another one takes them (proc.ts), or the agent would die of EPIPE.
    // Only the pipes made for it: the streams handed in are the agent's, for the next one.
    const relay = untilExeced(start, (dead) => {
      for (const s of [dead.stdout, dead.stderr, dead.stdio[3 + streams.length]]) s?.destroy();
    });
    relay.unref();
    if (relay.pid === undefined) return null;
    const ended = new Promise<void>((resolve) => {
      relay.once('exit', () => resolve());
      relay.once('error', () => resolve());
    });
    const signal = keep ? (relay.stdio[3 + streams.length] as Readable | null) : null;
    const ready = new Promise<void>((resolve) => {
      if (!signal) return resolve();
      signal.on('data', () => resolve());
      signal.on('close', () => resolve());
      signal.on('error', () => resolve());
      void ended.then(() => resolve());
    });
    return { pid: relay.pid, procStart: procStartTime(relay.pid), ended, ready, out: relay.stdout, err: relay.stderr };
  } catch {
    return null;
  }
}

/**
 * The keeper of a run from its start: the relay takes the agent's pipes
 * before anything was read here, so a kill -9 of checkroom never breaks them, and passes every
 * byte back on its own stdout and stderr (Relay.out, Relay.err) while checkroom reads them:
 * the ring, the pane, the watchdog and the byte count see what they saw before. Null when no
 * relay could be started; the streams are then untouched and the caller reads them itself.
 */
export function keepOutput(streams: (Readable | null | undefined)[], logPath: string, room: number): Relay | null {
  // Called right after the spawn, before any listener: nothing was read from them yet.
  const open = streams.filter((s): s is Readable => !!s && !s.destroyed && !s.readableEnded && s.readableLength === 0);
  if (open.length !== 2) return null;
  const relay = startRelay(open, logPath, room, 'keep');
  if (relay) for (const s of open) s.destroy();
  return relay;
}

/**
 * Stop reading the agent's output here and hand it to a relay: what this process already
 * received reaches the log first (its log stream is flushed and closed, then whatever the
 * paused streams buffered is appended), then the relay takes the pipes and ours are closed.
 * No event-loop turn passes between taking the buffered data and closing our copies, so
 * nothing is read twice or lost. The relay, or null.
 */
export async function handOver(streams: (Readable | null | undefined)[], log: WriteStream | null, logPath: string, room: number, mode: RelayMode = 'left'): Promise<Relay | null> {
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
  const relay = startRelay(live, logPath, left, mode);
  for (const s of open) s.destroy();
  return relay;
}
