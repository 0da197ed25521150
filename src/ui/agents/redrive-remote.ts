import { readRedrive } from '../../bulk/read.js';
import { previewJson } from '../../bulk/preview.js';
import { undoWords } from '../../bulk/apply.js';
import type { WorkspaceConfig } from '../../pipeline/config/types.js';
import type { ActAnswer, RedriveAsk } from '../../socket/acts.js';
import { cellKey } from '../../types.js';
import type { AppState, Tone } from '../store/types.js';
import { drainWords, redriveWords } from './redrive.js';
import type { SupervisorPort } from './types.js';

// `checkroom redrive ... --yes` from another terminal while this room drives (docs/redrive.md,
// From another terminal): the filter read against this room's view (readRedrive, as `:redrive`
// reads it), then the supervisor's redrive, undoRedrive or drainRedrive, as the dialog's `y`
// calls them. The message line says who asked and what was done; the asker gets the same words
// and the document `checkroom redrive --json` prints.

export interface RemoteRedriveDeps {
  sup: SupervisorPort;
  config: WorkspaceConfig;
  get: () => AppState;
  track: (p: Promise<unknown>) => void;
  sayClean: (text: string, tone?: Tone) => void;
}

/** The supervisor's refusal words for an instance that does not drive, asked before anything is read. */
export function refuseUnlessDriver(sup: Pick<SupervisorPort, 'snapshot'>, what: string): void {
  const snap = sup.snapshot();
  if (snap.role !== 'driver') throw new Error(`read-only: cannot ${what}; ${snap.readonlyReason ?? 'another checkroom drives this workspace'}`);
}

export const remoteRedrive =
  ({ sup, config, get, track, sayClean }: RemoteRedriveDeps) =>
  async (ask: RedriveAsk): Promise<ActAnswer> => {
    refuseUnlessDriver(sup, ask.kind === 'undo' ? 'undo a set action' : 'redrive');
    const queued = (): string[] => Object.keys(sup.snapshot().ledger.bulk.queue);
    const told = (message: string, tone: Tone, doc: Record<string, unknown>): ActAnswer => (sayClean(`${ask.by}: ${message}`, tone), { message, doc });
    if (ask.kind === 'undo') {
      const plan = await sup.undoRedrive(ask.which);
      return told(undoWords(plan), 'ok', { undone: { id: plan.record.id, name: plan.record.name, action: plan.record.action }, back: plan.back, ran: plan.ran });
    }
    if (ask.kind === 'drain') {
      const d = await sup.drainRedrive();
      track(d.runs);
      return told(drainWords(d), d.refused.length ? 'warn' : 'ok', { started: d.started, refused: d.refused, queued: queued() });
    }
    const snap = sup.snapshot();
    const flying = new Set([...snap.runs, ...snap.waiting].map((r) => cellKey(r.unit, r.step)));
    const { preview: p } = await readRedrive(sup.root, ask.text, Date.now(), { ws: get().ws, config, flying });
    if (p.cells.length === 0) {
      const out = p.excluded.length ? `; ${p.excluded.length} named but left out (${p.excluded[0]!.key}: ${p.excluded[0]!.why})` : '';
      return told(`redrive ${p.filter}: no cell to ${p.action}${out}`, 'warn', { preview: previewJson(p), done: false });
    }
    const r = await sup.redrive({ action: p.action, name: p.name, filter: p.filter, cells: p.cells });
    track(r.runs);
    const doc = { preview: previewJson(p), done: true, record: { id: r.record.id, name: r.record.name }, refused: r.refused, queued: queued() };
    return told(redriveWords(p.action, r), r.refused.length ? 'warn' : 'ok', doc);
  };
