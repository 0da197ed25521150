import { createServer, type Server, type Socket } from 'node:net';
import { chmodSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { assertInside } from '../fs/confine-path.js';
import type { LiveWorkspace } from '../live/live-workspace.js';
import type { Supervisor } from '../run/supervisor/types.js';
import { writeFileAtomic } from '../fs/atomic-write.js';
import { pointerPath, socketDir, socketPaths, type SocketPaths } from './where.js';
import { cleanStale, newToken, readToken, sameToken, writeToken } from './token.js';
import { firstLine, jsonLine, MAX_REQUEST, parseRequest, type PauseAsk, type Request } from './wire.js';
import type { ActAnswer, ActPort } from './acts.js';
import { createWatchers, type Watchers } from './watchers.js';
import { openControl } from './client.js';
import type { StatusText } from './status-text.js';

// A running control room answers on a unix socket: `status` (the live
// state, once every file event that happened before the request is applied), `watch` (NDJSON
// events) and `ping`. Bounded: one request line of at most MAX_REQUEST bytes, sent within
// REQUEST_MS of connecting; at most MAX_CONNECTIONS at once; watch clients are bounded by
// watchers.ts. A peer of another uid cannot reach the 0700 directory or the 0600 socket, and
// must also present the 0600 token.

export const MAX_CONNECTIONS = 32;

const BAD_REQUEST =
  'bad request: one JSON line {"token", "op": "status" | "watch" | "ping" | "handover" | "pause" | "redrive" | "redo"}; "pause": {"scope", "target", "on", "by"}, "redrive": {"kind": "apply", "text"} | {"kind": "undo", "which"} | {"kind": "drain"} with "by", "redo": {"unit", "step", "agent", "prompt", "by"}';
export const REQUEST_MS = 5000;

export interface ControlServer {
  readonly paths: SocketPaths;
  close(): Promise<void>;
  /** A shutdown out of time: the socket, token and pointer removed synchronously. */
  closeNow(): void;
}

export interface ControlOptions {
  live: Pick<LiveWorkspace, 'state' | 'subscribe' | 'settled'>;
  sup?: Pick<Supervisor, 'subscribe'>;
  /** Write the pointer under .checkroom/ (not with --readonly: that instance writes nothing). */
  pointer: boolean;
  env?: NodeJS.ProcessEnv;
  now?: () => number;
  /** How long a peer may stay silent before its request; default REQUEST_MS. */
  requestMs?: number;
  /** The driver's side of a handover; without it, `handover` is refused. */
  handover?: HandoverPort;
  /** The supervisor's drain and pause (docs/drain.md); without it, `pause` is refused. */
  pause?: PausePort;
  /** The driving room's redrive and redo (acts.ts); without it, both are refused. */
  act?: ActPort;
}

/** What `pause` asks of the instance behind the socket: the supervisor applies it, or refuses (an observer). */
export interface PausePort {
  pause(ask: PauseAsk): Promise<string>;
}

/** What the socket may ask of the instance behind it: its role, its terminal's last key, and to hand over. */
export interface HandoverPort {
  role(): 'driver' | 'readonly';
  lastInputAt(): number | null;
  /** Leave the runs running and end this instance; called once the asker has its answer. */
  begin(): void;
}

/**
 * Every file event that happened before the request, applied: `live.settled()` applies the
 * pending batch (a rescan only in poll mode, where no events come). It replaced a forced
 * re-read of the whole tree per request — 12× `grep -rl` at 50k. Concurrent
 * requests share the next settle that starts after they arrived, never an earlier one.
 */
export function settler(live: ControlOptions['live']): () => Promise<void> {
  const once = async (): Promise<void> => {
    // inotify events already read by libuv in this turn reach the live model first.
    await new Promise((r) => setImmediate(r));
    return live.settled();
  };
  let running: Promise<void> | null = null;
  let next: Promise<void> | null = null;
  const settle = (): Promise<void> => {
    if (!running) return (running = once().finally(() => (running = null)));
    return (next ??= running.then(
      () => ((next = null), settle()),
      () => ((next = null), settle()),
    ));
  };
  return settle;
}

interface Answering {
  token: string;
  requestMs: number;
  now: () => number;
  live: ControlOptions['live'];
  settle: () => Promise<void>;
  text: StatusText;
  watchers: Watchers;
  handover: HandoverPort | undefined;
  pause: PausePort | undefined;
  act: ActPort | undefined;
}

/**
 * `handover`: refused unless this instance drives; otherwise the answer goes first, then the
 * driver ends by its one shutdown path, leaving its runs running. Only a
 * peer that read our 0600 token gets here, through our 0700 directory.
 */
function handOver(sock: Socket, port: HandoverPort | undefined, refuse: (error: string) => void): void {
  if (!port) return refuse('this checkroom runs no agents: there is nothing to hand over');
  if (port.role() !== 'driver') return refuse('this checkroom does not drive this workspace (it is read-only): there is nothing to hand over');
  sock.end(jsonLine({ ok: true, pid: process.pid }), () => port.begin());
}

/** The message in a header stays under the client's header bound (client.ts) even escaped six bytes a character; the document has the rest. */
const MAX_MESSAGE = 600;

/** The header, then the document (escaped as every JSON the CLI prints), `bytes` long. */
function sendAct(sock: Socket, a: ActAnswer): void {
  const body = jsonLine(a.doc);
  const message = a.message.length > MAX_MESSAGE ? `${a.message.slice(0, MAX_MESSAGE - 1)}…` : a.message;
  sock.end(jsonLine({ ok: true, pid: process.pid, message, bytes: Buffer.byteLength(body) }) + body);
}

/**
 * `pause`, `redrive`, `redo`: the driver applies them (one decision each); its refusal
 * (read-only, an unknown agent or cell, a file being written) is the answer.
 */
function applyAsk(sock: Socket, req: Request, a: Pick<Answering, 'pause' | 'act'>, refuse: (error: string) => void): void {
  const fail = (err: Error): void => refuse(err.message);
  if (req.op === 'pause') {
    if (!a.pause || !req.pause) return refuse('this checkroom runs no agents: there is nothing to pause');
    return void a.pause.pause(req.pause).then((message) => sock.end(jsonLine({ ok: true, pid: process.pid, message })), fail);
  }
  if (!a.act) return refuse(`this checkroom runs no agents: it applies no ${req.op}`);
  if (req.op === 'redrive' && req.redrive) return void a.act.redrive(req.redrive).then((r) => sendAct(sock, r), fail);
  if (req.op === 'redo' && req.redo) return void a.act.redo(req.redo).then((r) => sendAct(sock, r), fail);
  refuse(BAD_REQUEST);
}

/** One connection: one request line, checked, then its answer. */
function answer(sock: Socket, a: Answering): void {
  sock.on('error', () => sock.destroy());
  // A peer that connects and says nothing is closed (idle clients).
  sock.setTimeout(a.requestMs, () => sock.destroy());
  const refuse = (error: string): void => void sock.end(jsonLine({ ok: false, error }));
  firstLine(
    sock,
    MAX_REQUEST,
    (line) => {
      sock.setTimeout(0);
      const req = parseRequest(line);
      if (!req) return refuse(BAD_REQUEST);
      if (!sameToken(req.token, a.token)) return refuse('wrong token');
      if (req.op === 'ping') return void sock.end(jsonLine({ ok: true, pid: process.pid, ...(a.handover ? { role: a.handover.role(), lastInputAt: a.handover.lastInputAt() } : {}) }));
      if (req.op === 'handover') return handOver(sock, a.handover, refuse);
      if (req.op === 'pause' || req.op === 'redrive' || req.op === 'redo') return applyAsk(sock, req, a, refuse);
      if (req.op === 'watch') {
        sock.write(jsonLine({ ok: true, pid: process.pid }));
        const s = a.live.state;
        return a.watchers.add(sock, { type: 'hello', at: new Date(a.now()).toISOString(), workspace: s.root, pid: process.pid, cells: s.cells.length });
      }
      a.settle().then(
        () => {
          const body = a.text(a.live.state);
          sock.cork();
          sock.write(jsonLine({ ok: true, pid: process.pid, bytes: body.reduce((n, b) => n + b.length, 0) }));
          for (const b of body) sock.write(b);
          sock.end();
        },
        (err: Error) => refuse(`cannot read the workspace: ${err.message}`),
      );
    },
    () => refuse(`request longer than ${MAX_REQUEST} bytes`),
  );
}

/**
 * Null when another live instance already answers for this workspace (it keeps serving).
 * `text`: what `status` answers — what `checkroom status --json` prints, kept by piece.
 */
export async function startControlServer(root: string, opts: ControlOptions, text: StatusText): Promise<ControlServer | null> {
  const env = opts.env ?? process.env;
  const now = opts.now ?? Date.now;
  const paths = socketPaths(root, socketDir(env));
  const pointer = pointerPath(root);
  // Refused before anything is created: a `.checkroom` linked out of the workspace.
  if (opts.pointer) assertInside('rename', pointer, [root]);
  if ((await openControl(root, 'ping', { timeoutMs: 1000, env })).ok) return null;
  cleanStale(paths, true);
  const token = newToken();
  const settle = settler(opts.live);
  const watchers = createWatchers(() => opts.live.state, now);
  const offLive = opts.live.subscribe((s) => watchers.onState(s));
  const offSup = opts.sup?.subscribe((e) => watchers.onSupervisor(e));
  const conns = new Set<Socket>();
  const serve = (sock: Socket): void => {
    conns.add(sock);
    sock.once('close', () => conns.delete(sock));
    answer(sock, { token, requestMs: opts.requestMs ?? REQUEST_MS, now, live: opts.live, settle, text, watchers, handover: opts.handover, pause: opts.pause, act: opts.act });
  };

  const server: Server = createServer(serve);
  server.maxConnections = MAX_CONNECTIONS;
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(assertInside('listen', paths.socket, [paths.dir]), () => (server.off('error', fail), ok()));
  });
  // The directory is 0700 already; the socket is made 0600 too (the kernel checks both).
  chmodSync(assertInside('chmod', paths.socket, [paths.dir]), 0o600);
  writeToken(paths, { pid: process.pid, token });
  if (opts.pointer) {
    mkdirSync(assertInside('mkdir', dirname(pointer), [root]), { recursive: true });
    await writeFileAtomic(pointer, JSON.stringify({ socket: paths.socket, token: paths.token, pid: process.pid }) + '\n', [root]);
  }

  const ours = (): boolean => readToken(paths.token)?.token === token;
  const removeFiles = (): void => {
    if (!ours()) return;
    rmSync(assertInside('unlink', paths.socket, [paths.dir]), { force: true });
    rmSync(assertInside('unlink', paths.token, [paths.dir]), { force: true });
    try {
      if (opts.pointer && (JSON.parse(readFileSync(pointer, 'utf8')) as { pid?: number }).pid === process.pid) rmSync(assertInside('unlink', pointer, [root]), { force: true });
    } catch {
      // a pointer already gone or rewritten by the next instance is not ours to remove
    }
  };
  let closed = false;
  const stop = (): void => {
    if (closed) return;
    closed = true;
    offLive();
    offSup?.();
    watchers.close();
    for (const c of conns) c.destroy();
    removeFiles();
  };
  return {
    paths,
    async close() {
      stop();
      await new Promise<void>((r) => server.close(() => r()));
    },
    closeNow() {
      stop();
      server.close();
    },
  };
}
