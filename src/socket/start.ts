import type { LiveWorkspace } from '../live/live-workspace.js';
import type { Supervisor } from '../run/supervisor/types.js';
import { startControlServer, type ControlServer, type HandoverPort, type PausePort } from './server.js';
import type { ActPort } from './acts.js';
import type { StatusText } from './status-text.js';

// The control room's hook (src/ui/entry/entry.ts): the driving instance and an observer alike
// serve their live state. Serving is a convenience for scripts: a
// directory that cannot be used is said once, and the control room starts regardless.
// An instance that found another one serving asks again every RETRY_MS: once that one is
// gone (quit, kill -9, a handover) this one answers, so the next instance
// can ask it to hand over in turn.

export const RETRY_MS = 5000;

export interface ControlHook {
  /** The server, once this instance serves (null while another instance answers). */
  readonly server: ControlServer | null;
  /** Why nothing is served (null: serving, or another instance already does). */
  notice: string | null;
  /** Stop asking again, and close the server if there is one. */
  close(): Promise<void>;
  /** A shutdown out of time: the same, synchronously. */
  closeNow(): void;
}

export async function serveControlRoom(
  live: LiveWorkspace,
  sup: Pick<Supervisor, 'subscribe'> | undefined,
  readonly: boolean,
  text: StatusText,
  handover?: HandoverPort,
  ports: { pause?: PausePort; act?: ActPort } = {},
): Promise<ControlHook> {
  const start = (): Promise<ControlServer | null> => startControlServer(live.state.root, { live, sup, pointer: !readonly, ...(handover ? { handover } : {}), ...ports }, text);
  let server: ControlServer | null = null;
  let timer: NodeJS.Timeout | null = null;
  let closed = false;
  const hook: ControlHook = {
    get server() {
      return server;
    },
    notice: null,
    async close() {
      closed = true;
      if (timer) clearInterval(timer);
      await server?.close();
    },
    closeNow() {
      closed = true;
      if (timer) clearInterval(timer);
      server?.closeNow();
    },
  };
  try {
    server = await start();
  } catch (err) {
    hook.notice = `control socket off (status --json scans instead): ${(err as Error).message}`;
    return hook;
  }
  if (server) return hook;
  let asking = false;
  timer = setInterval(() => {
    if (asking || closed) return;
    asking = true;
    start()
      .then(
        (s) => {
          if (!s) return;
          if (closed) return void s.closeNow();
          server = s;
          if (timer) clearInterval(timer);
        },
        () => undefined,
      )
      .finally(() => (asking = false));
  }, RETRY_MS);
  timer.unref();
  return hook;
}
