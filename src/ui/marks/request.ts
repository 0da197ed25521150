import type { Liveness } from '../../holders/liveness.js';
import { seeFiles } from '../keys/confirm-guard.js';
import type { Decision, Planned } from '../store/kit.js';
import type { AppState } from '../store/types.js';
import { keepBackups, planMoves } from '../triage/actions.js';
import { noting } from '../triage/planners.js';
import { allRefused, freshMarked, markedKeepAsk, markedMovesAsk, markedSkipAsk, planMarkedPartials, type PartialsBulk } from './partials.js';

// b / d / m / s with marks (docs/marks.md), as the triage slice runs it: the pure plan first,
// then, with `busy` held, /proc asked again for the marked files only and the backup names
// and the files as seen gathered for the one preview. Apart from slice.ts, which stays one
// screen long.

export interface MarkedDeps {
  get: () => AppState;
  now: () => Date;
  settle: <T>(p: Planned<T>, at: Date) => T | null;
  /** Plan with `busy` held, then open the dialog (triage/slice.ts). */
  planning: (at: Date, plan: () => Promise<Decision>) => void;
  /** Is any of these files live now (held.ts `liveNow`)? */
  liveFiles: (paths: readonly string[]) => Map<string, Liveness>;
  root: () => string;
}

export const markedRequest =
  ({ get, now, settle, planning, liveFiles, root }: MarkedDeps) =>
  (kind: PartialsBulk): void => {
    const at = now();
    const planned = settle(planMarkedPartials(get(), kind), at);
    if (!planned) return;
    planning(at, async () => {
      // Asked again now, for the marked files only: the view's answer may be a second old.
      const fresh = liveFiles(planned.go.map((i) => i.file.path));
      const p = freshMarked(planned, fresh);
      if (p.go.length === 0) return allRefused(p);
      if (kind === 'skip') return { ask: { ...markedSkipAsk(p), marked: 'partials' } };
      const seen = await seeFiles(
        root(),
        p.go.map((i) => i.file),
      );
      const paths = p.go.map((i) => i.file.path);
      const ask = kind === 'keep' ? markedKeepAsk(p, await keepBackups(root(), paths, at), seen) : markedMovesAsk(p, await planMoves(root(), paths, at), seen);
      return { ask: { ...noting(ask, fresh), marked: 'partials' } };
    });
  };
