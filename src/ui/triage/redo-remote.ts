import type { ActAnswer, RedoAsk } from '../../socket/acts.js';
import { redoJson } from '../../redo/words.js';
import type { SupervisorPort } from '../agents/types.js';
import { refuseUnlessDriver } from '../agents/redrive-remote.js';
import type { Tone } from '../store/types.js';
import { redoDoneWords, type redoNow } from './redo.js';

// `checkroom redo ... --yes` from another terminal while this room drives (docs/redo.md, From
// another terminal): the triage slice's redoNow (D's checks and effects, one record through
// this room's journal, its queue in autopilot's order); the message line says who asked.

export interface RemoteRedoDeps {
  sup: Pick<SupervisorPort, 'snapshot'>;
  redoNow: (req: Parameters<typeof redoNow>[1], ledger: Parameters<typeof redoNow>[2]) => ReturnType<typeof redoNow>;
  sayClean: (text: string, tone?: Tone) => void;
}

export const remoteRedo =
  ({ sup, redoNow, sayClean }: RemoteRedoDeps) =>
  async (ask: RedoAsk): Promise<ActAnswer> => {
    // Checked before any file moves: the record would be refused after the backups were made.
    refuseUnlessDriver(sup, 'redo');
    const override = { ...(ask.agent !== null ? { agent: ask.agent } : {}), ...(ask.prompt !== null ? { prompt: ask.prompt } : {}) };
    const { preview, applied } = await redoNow({ cell: { unit: ask.unit, step: ask.step }, override }, sup.snapshot().ledger);
    const message = redoDoneWords(preview, applied.moves.length);
    sayClean(`${ask.by}: ${message}`, 'ok');
    return { message, doc: redoJson(preview, applied) };
  };
