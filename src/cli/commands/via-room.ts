import { askAct, openControl } from '../../socket/client.js';
import { requestBytes } from '../../socket/acts.js';
import { MAX_REQUEST } from '../../socket/wire.js';
import { socketOff } from './socket-commands.js';

// `checkroom redrive --yes` and `checkroom redo --yes` while a control room drives the
// workspace (docs/redrive.md, docs/redo.md): the driver applies them through its socket, with
// the functions its own keys use, as `checkroom drain` does (pause-command.ts). With none
// answering, the command applies it here under the driver lock, as before.

/** `none`: no control room answered (or CHECKROOM_SOCKET=off): apply it here. `refused`: one answered no: not applied behind its back. */
export type ViaRoom = { kind: 'none' } | { kind: 'refused'; why: string } | { kind: 'applied'; pid: number | null; message: string; doc: Record<string, unknown> };

/**
 * Ask the driving control room to apply `op`. `tooLong`: what to do when the request is past
 * what its socket takes (the filter or the prompt is the only part that can grow).
 */
export async function viaRoom(root: string, op: 'redrive' | 'redo', body: Record<string, unknown>, env: NodeJS.ProcessEnv, tooLong: string): Promise<ViaRoom> {
  if (socketOff(env)) return { kind: 'none' };
  const bytes = requestBytes(op, body);
  if (bytes > MAX_REQUEST) {
    // Too long for a control room only matters when one runs: with none, it is applied here.
    const ping = await openControl(root, 'ping', { env, timeoutMs: 5000 });
    if (!ping.ok) return { kind: 'none' };
    ping.sock.destroy();
    return { kind: 'refused', why: `the request is ${bytes} bytes; a control room's socket takes at most ${MAX_REQUEST}: ${tooLong}` };
  }
  const r = await askAct(root, op, body, { env });
  if (r.ok) return { kind: 'applied', pid: r.pid, message: r.message, doc: r.doc };
  return r.final ? { kind: 'refused', why: r.why } : { kind: 'none' };
}

/** The suffix every line a control room's answer ends with. */
export const appliedBy = (pid: number | null): string => `(applied by the control room, pid ${pid ?? '?'})`;
