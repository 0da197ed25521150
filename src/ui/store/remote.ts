import type { ActAnswer, ActPort } from '../../socket/acts.js';
import type { WorkspaceConfig } from '../../pipeline/config/types.js';
import type { SupervisorPort } from '../agents/types.js';
import { remoteRedrive } from '../agents/redrive-remote.js';
import { remoteRedo, type RemoteRedoDeps } from '../triage/redo-remote.js';
import type { AppState, Tone } from './types.js';

// What the control socket may ask of the room that drives (src/socket/acts.ts): a redrive and a
// redo from another terminal, applied by this room's own functions. Done or refused, the
// message line says who asked and what came of it, so the operator at the screen sees it.

export interface RemoteDeps {
  sup: SupervisorPort;
  config: WorkspaceConfig;
  get: () => AppState;
  track: (p: Promise<unknown>) => void;
  sayClean: (text: string, tone?: Tone) => void;
  redoNow: RemoteRedoDeps['redoNow'];
}

export function remoteActs(d: RemoteDeps): ActPort {
  const told =
    <A extends { by: string }>(act: (a: A) => Promise<ActAnswer>) =>
    (a: A): Promise<ActAnswer> =>
      act(a).catch((err: Error) => {
        d.sayClean(`${a.by}: not done: ${err.message}`, 'warn');
        throw err;
      });
  return { redrive: told(remoteRedrive(d)), redo: told(remoteRedo(d)) };
}
