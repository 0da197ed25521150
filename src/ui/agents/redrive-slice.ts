import { readRedrive } from '../../bulk/read.js';
import type { WorkspaceConfig } from '../../pipeline/config/types.js';
import { cellKey } from '../../types.js';
import type { Decision } from '../store/kit.js';
import type { AppState, Tone } from '../store/types.js';
import { drainWords, planRedrive, planRedriveUndo, undoArgs } from './redrive.js';
import type { SupervisorPort } from './types.js';

// `:redrive` in the agents slice (docs/redrive.md): what the line asks, read and planned
// (redrive.ts, pure), then shown; the dialog's `y` runs the effects row (effects.ts).

export interface RedriveDeps {
  sup: SupervisorPort;
  config: WorkspaceConfig;
  get: () => AppState;
  act: (busy: string | null, work: () => Promise<void>) => void;
  decide: (d: Decision) => void;
  sayClean: (text: string, tone?: Tone) => void;
}

/** The handler of `:redrive <args>`: `undo [name]` asks to undo, `drain` launches a queue left over, anything else is a filter. */
export const redriveRequest =
  ({ sup, config, get, act, decide, sayClean }: RedriveDeps) =>
  (args: string): void => {
    const u = undoArgs(args);
    if (u) return decide(planRedriveUndo(sup.snapshot().ledger, u.which));
    // A queue left by a refusing gate or a restart: launched now, through the same gate.
    if (args.trim() === 'drain')
      return act(null, async () => {
        const d = await sup.drainRedrive();
        sayClean(drainWords(d), d.refused.length ? 'warn' : 'ok');
      });
    const snap = sup.snapshot();
    const flying = new Set([...snap.runs, ...snap.waiting].map((r) => cellKey(r.unit, r.step)));
    act(null, async () => {
      const { preview } = await readRedrive(sup.root, args, Date.now(), { ws: get().ws, config, flying });
      decide(planRedrive(preview, sup.snapshot().ledger, sup, config));
    });
  };
