import type { Socket } from 'node:net';
import { escapeJsonText } from '../text/json-escape.js';
import { redoAskOf, redriveAskOf, type RedoAsk, type RedriveAsk } from './acts.js';

// The control socket's framing: one JSON object per line (NDJSON). Bounded on both sides:
// a request line past MAX_REQUEST bytes closes the connection, so a peer
// cannot make us buffer without end.

export const MAX_REQUEST = 4096;

// `handover`: the driver leaves its runs running and exits, for the asker to drive.
// `pause`: drain, undrain, pause or resume, applied by the driver (docs/drain.md).
// `redrive`, `redo`: a set action or a redo from here, applied by the driver (acts.ts).
export type Op = 'status' | 'watch' | 'ping' | 'handover' | 'pause' | 'redrive' | 'redo';
const OPS: readonly Op[] = ['status', 'watch', 'ping', 'handover', 'pause', 'redrive', 'redo'];

/** What `pause` asks: the driver's PauseRequest (run/supervisor/pause-action.ts), as plain JSON. */
export interface PauseAsk {
  scope: 'drain' | 'all' | 'cell' | 'agent' | 'executor';
  target: string | null;
  on: boolean;
  by: string;
}

export interface Request {
  token: string;
  op: Op;
  pause?: PauseAsk;
  redrive?: RedriveAsk;
  redo?: RedoAsk;
}

const SCOPES: readonly string[] = ['drain', 'all', 'cell', 'agent', 'executor'];

/** The `pause` request's body, checked field by field: a peer's JSON is untrusted. */
const pauseAskOf = (v: unknown): PauseAsk | null => {
  if (typeof v !== 'object' || v === null) return null;
  const o = v as Record<string, unknown>;
  if (typeof o.scope !== 'string' || !SCOPES.includes(o.scope) || typeof o.on !== 'boolean' || typeof o.by !== 'string') return null;
  if (o.target !== null && typeof o.target !== 'string') return null;
  return { scope: o.scope as PauseAsk['scope'], target: o.target as string | null, on: o.on, by: o.by };
};

export interface Header {
  ok: boolean;
  error?: string;
  pid?: number;
  /** status: the body's length in bytes; a shorter body is an instance that died mid-answer. */
  bytes?: number;
  /** ping: whether this instance drives, and when its terminal last sent a key (epoch ms; null: none yet). */
  role?: 'driver' | 'readonly';
  lastInputAt?: number | null;
  /** pause, redrive, redo: what the driver did, in words (redrive and redo: their document follows, `bytes` long). */
  message?: string;
}

/** One compact JSON line with no terminal control in its text: escaped as every JSON the CLI prints (src/text/json-escape.ts). */
export const jsonLine = (value: unknown): string => escapeJsonText(JSON.stringify(value)) + '\n';

/**
 * Call `onLine` with the first line the peer sends (without its newline), at most `max`
 * bytes; `onTooLong` when more arrive without one. What follows the first line is the
 * caller's (the server reads one request per connection).
 */
export function firstLine(sock: Socket, max: number, onLine: (line: string, rest: Buffer) => void, onTooLong: () => void): void {
  let buf = Buffer.alloc(0);
  const onData = (chunk: Buffer): void => {
    buf = Buffer.concat([buf, chunk]);
    const nl = buf.indexOf(0x0a);
    if (nl < 0) {
      if (buf.length > max) {
        sock.off('data', onData);
        onTooLong();
      }
      return;
    }
    sock.off('data', onData);
    if (nl > max) return onTooLong();
    onLine(buf.subarray(0, nl).toString('utf8'), buf.subarray(nl + 1));
  };
  sock.on('data', onData);
}

export function parseRequest(line: string): Request | null {
  try {
    const v = JSON.parse(line) as Partial<Request>;
    if (typeof v.token !== 'string' || !OPS.includes(v.op as Op)) return null;
    if (v.op === 'pause') {
      const pause = pauseAskOf(v.pause);
      return pause ? { token: v.token, op: 'pause', pause } : null;
    }
    if (v.op === 'redrive') {
      const redrive = redriveAskOf(v.redrive);
      return redrive ? { token: v.token, op: 'redrive', redrive } : null;
    }
    if (v.op === 'redo') {
      const redo = redoAskOf(v.redo);
      return redo ? { token: v.token, op: 'redo', redo } : null;
    }
    return { token: v.token, op: v.op as Op };
  } catch {
    return null;
  }
}
