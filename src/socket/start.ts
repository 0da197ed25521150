import type { LiveWorkspace } from '../live/live-workspace.js';
import type { Supervisor } from '../run/supervisor-types.js';
import { startControlServer, type ControlServer, type HandoverPort } from './server.js';
import type { StatusText } from './status-text.js';

// The control room's hook (src/ui-entry.ts): the driving instance and an observer alike
// serve their live state (issue 10 item 4). Serving is a convenience for scripts: a
// directory that cannot be used is said once, and the control room starts regardless.

export interface ControlHook {
  server: ControlServer | null;
  /** Why nothing is served (null: serving, or another instance already does). */
  notice: string | null;
}

export async function serveControlRoom(
  live: LiveWorkspace,
  sup: Pick<Supervisor, 'subscribe'> | undefined,
  readonly: boolean,
  text: StatusText,
  handover?: HandoverPort,
): Promise<ControlHook> {
  try {
    const server = await startControlServer(live.state.root, { live, sup, pointer: !readonly, ...(handover ? { handover } : {}) }, text);
    return { server, notice: null };
  } catch (err) {
    return { server: null, notice: `control socket off (status --json scans instead): ${(err as Error).message}` };
  }
}
