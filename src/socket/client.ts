import { connect, type Socket } from 'node:net';
import { resolve } from 'node:path';
import { assertInside } from '../fs/confine-path.js';
import { checkDir, runtimeDirs, socketPaths, type SocketPaths } from './where.js';
import { cleanStale, ownedAs, readToken } from './token.js';
import { firstLine, jsonLine, MAX_REQUEST, type Header, type Op } from './wire.js';
import { MAX_ANSWER, requestBytes } from './acts.js';

// The client side of the control socket: `checkroom status --json` asks a running control
// room first, `checkroom watch` streams from one. Every step is bounded:
// no instance, an unsafe directory, a stale socket or a silent one is an answer ("none"),
// never a hang.

export type Opened = { ok: true; sock: Socket; header: Header; rest: Buffer } | { ok: false; why: string };

const MAX_HEADER = 4096;

/**
 * This workspace's socket in each of our runtime directories, derived from its key. The
 * pointer under .checkroom/ is not read: a workspace is untrusted input, and a forged one
 * named ~/.ssh/id_ed25519 as a "stale socket" to clean.
 */
const candidates = (root: string, env: NodeJS.ProcessEnv): SocketPaths[] => runtimeDirs(env).map((d) => socketPaths(root, d));

function tryOne(paths: SocketPaths, op: Op, timeoutMs: number, body: Record<string, unknown> = {}): Promise<Opened> {
  try {
    checkDir(paths.dir);
  } catch (err) {
    return Promise.resolve({
      ok: false,
      why: (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no control room runs on this workspace' : (err as Error).message,
    });
  }
  const token = readToken(paths.token);
  // Only our own socket is dialled: a FIFO, a link or another user's socket at the name is not.
  if (!token || !ownedAs(paths.socket, 'socket')) return Promise.resolve({ ok: false, why: 'no control room runs on this workspace' });
  return new Promise((done) => {
    const sock = connect(assertInside('connect', paths.socket, [paths.dir]));
    let settled = false;
    const finish = (r: Opened): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (!r.ok) sock.destroy();
      done(r);
    };
    const timer = setTimeout(() => finish({ ok: false, why: `the control room (pid ${token.pid}) did not answer within ${timeoutMs} ms` }), timeoutMs);
    sock.once('error', (err: NodeJS.ErrnoException) => {
      // Nothing listens: the instance is gone (kill -9); its socket and token are cleaned.
      if (err.code === 'ECONNREFUSED' || err.code === 'ENOENT') cleanStale(paths, true);
      finish({
        ok: false,
        why:
          err.code === 'ECONNREFUSED' || err.code === 'ENOENT'
            ? 'no control room runs on this workspace (a stale socket was cleaned)'
            : `cannot reach the control room: ${err.message}`,
      });
    });
    sock.once('close', () => finish({ ok: false, why: 'the control room closed the connection' }));
    sock.once('connect', () => sock.write(jsonLine({ ...body, token: token.token, op })));
    firstLine(
      sock,
      MAX_HEADER,
      (line, rest) => {
        let header: Header;
        try {
          header = JSON.parse(line) as Header;
        } catch {
          return finish({ ok: false, why: 'the control room answered something else than its protocol' });
        }
        if (!header.ok) return finish({ ok: false, why: `the control room refused: ${header.error ?? 'no reason given'}` });
        sock.pause();
        finish({ ok: true, sock, header, rest });
      },
      () => finish({ ok: false, why: 'the control room answered an oversized header' }),
    );
  });
}

/** Open `op` on the workspace's control room; `{ ok: false, why }` when none answers within `timeoutMs`. */
export async function openControl(dir: string, op: Op, opts: { timeoutMs?: number; env?: NodeJS.ProcessEnv; body?: Record<string, unknown> } = {}): Promise<Opened> {
  const root = resolve(dir);
  const none = 'no control room runs on this workspace';
  // The first directory that held something says why; the others only say "none".
  let why = none;
  for (const c of candidates(root, opts.env ?? process.env)) {
    const r = await tryOne(c, op, opts.timeoutMs ?? 5000, opts.body);
    if (r.ok) return r;
    if (why === none) why = r.why;
  }
  return { ok: false, why };
}

/**
 * The body after an answer's header, whole (exactly the header's `bytes`), or null: cut short,
 * longer than it said (closed at once), or not done within `timeoutMs`.
 */
function wholeBody({ sock, rest, header }: Extract<Opened, { ok: true }>, timeoutMs: number): Promise<Buffer[] | null> {
  return new Promise((done) => {
    const chunks: Buffer[] = rest.length ? [rest] : [];
    let got = rest.length;
    const timer = setTimeout(() => sock.destroy(), timeoutMs);
    sock.on('data', (c: Buffer) => ((got += c.length), typeof header.bytes === 'number' && got > header.bytes ? sock.destroy() : chunks.push(c)));
    sock.once('error', () => undefined);
    sock.once('close', () => {
      clearTimeout(timer);
      done(got === header.bytes ? chunks : null);
    });
    sock.resume();
  });
}

/**
 * The status text a running control room answers, whole, or null (then the caller scans).
 * Held until complete: an instance that dies mid-answer must not leave half a JSON document
 * before the scan's whole one.
 */
export async function askStatus(dir: string, opts: { timeoutMs?: number; env?: NodeJS.ProcessEnv } = {}): Promise<Buffer[] | null> {
  const opened = await openControl(dir, 'status', opts);
  if (!opened.ok) return null;
  return wholeBody(opened, opts.timeoutMs ?? 5000);
}

/** The driver's answer to `redrive` or `redo`: its words and its document; or why none came (`final`: it refused, or may have applied it: not to be applied here behind its back). */
export type ActReply = { ok: true; pid: number | null; message: string; doc: Record<string, unknown> } | { ok: false; final: boolean; why: string };

/**
 * Ask the control room that drives to apply `op` (acts.ts). `final`: it answered no, or its
 * answer was cut — the asker must not apply it behind its back. A request longer than the socket takes is
 * refused here, before anything is sent.
 */
export async function askAct(dir: string, op: 'redrive' | 'redo', body: Record<string, unknown>, opts: { timeoutMs?: number; env?: NodeJS.ProcessEnv } = {}): Promise<ActReply> {
  const bytes = requestBytes(op, body);
  if (bytes > MAX_REQUEST) return { ok: false, final: true, why: `the request is ${bytes} bytes; a control room's socket takes at most ${MAX_REQUEST}` };
  const opened = await openControl(dir, op, { timeoutMs: 60_000, ...opts, body });
  // Once a control room was reached it may have applied it (it refused, went silent, closed, answered garbage): never applied here too.
  if (!opened.ok) return { ok: false, final: opened.why.startsWith('the control room'), why: opened.why };
  const { sock, header } = opened;
  const lost = `the control room (pid ${header.pid ?? '?'}) applied ${op} but its answer was cut: see its screen or checkroom history`;
  if (typeof header.bytes !== 'number' || header.bytes > MAX_ANSWER) return sock.destroy(), { ok: false, final: true, why: lost };
  const answer = await wholeBody(opened, opts.timeoutMs ?? 60_000);
  try {
    if (!answer) throw new Error('short');
    const doc = JSON.parse(Buffer.concat(answer).toString('utf8')) as Record<string, unknown>;
    return { ok: true, pid: header.pid ?? null, message: header.message ?? '', doc };
  } catch {
    return { ok: false, final: true, why: lost };
  }
}
