import { resolve } from 'node:path';
import { askStatus, openControl } from '../../socket/client.js';
import { sanitizeLine } from '../../text/sanitize.js';
import { UsageError } from '../args.js';

// The CLI's side of the control socket. `status --json` asks a running
// control room first and prints its answer byte for byte; no instance, or none answering in
// time, and the caller scans as before. CHECKROOM_SOCKET=off always scans.

// The workspace argument as core-commands' dirArg reads it; not imported from there so that
// asking the socket never loads the scan (lazy-load what a command does not need).
const dirArg = (positionals: string[]): string => {
  if (positionals.length > 1) throw new UsageError(`unexpected argument "${positionals[1]}"`);
  return positionals[0] ?? '.';
};

export const socketOff = (env: NodeJS.ProcessEnv): boolean => env.CHECKROOM_SOCKET === 'off';

/** True when a control room answered (and its answer was written); false: scan instead. */
export async function statusFromControlRoom(positionals: string[], write: (b: Buffer) => void, env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  const dir = dirArg(positionals);
  if (socketOff(env)) return false;
  const chunks = await askStatus(dir, { env });
  if (!chunks) return false;
  for (const c of chunks) write(c);
  return true;
}

/** `checkroom watch [dir] --json`: the control room's events as NDJSON until it quits. */
export async function watchCommand(positionals: string[], json: boolean, stdout: NodeJS.WritableStream, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const dir = dirArg(positionals);
  if (!json) throw new UsageError('watch streams NDJSON events for scripts: add --json');
  const opened = socketOff(env) ? ({ ok: false, why: 'CHECKROOM_SOCKET=off' } as const) : await openControl(dir, 'watch', { env, timeoutMs: 2000 });
  if (!opened.ok) {
    // An error a user can act on: what is missing and how to get it.
    throw new Error(
      `${sanitizeLine(opened.why)} (${sanitizeLine(resolve(dir))}); watch needs a running control room: start one with "checkroom ${sanitizeLine(dir)}" in a terminal`,
    );
  }
  const { sock, rest } = opened;
  if (rest.length) stdout.write(rest);
  return new Promise((done) => {
    // A reader that went away (`| head -1`): stop quietly.
    stdout.once('error', () => sock.destroy());
    sock.on('error', () => undefined);
    sock.once('close', () => done(0));
    sock.pipe(stdout, { end: false });
    sock.resume();
  });
}
