import { recheck } from '../keys/confirm-guard.js';
import { storeKit, type KitDeps } from './kit.js';
import type { Confirm } from './types.js';
import { clearMarks } from '../marks/marks.js';

// `y` on a dialog: a dialog that recorded its files runs only if none of
// them changed or got a live writer since it was shown; otherwise it refuses and says why.
// The dialog's pending type names the slice whose effects table does what it promised.

interface Slices {
  triage: { confirm(): void };
  agents: { confirm(): void } | null;
  recovery: { confirm(): void };
}

/** The slice that owns a dialog of this pending type. */
const ownerOf = (d: Confirm, s: Slices): { confirm(): void } | null =>
  d.pending.type === 'agents' ? s.agents : d.pending.type === 'recovery' ? s.recovery : s.triage;

export function confirmChecker(deps: KitDeps & Slices): () => void {
  const { set, get, track } = deps;
  const { sayClean } = storeKit(deps);
  const dispatch = (d: Confirm): void => {
    // The marked rows are acted on now: their marks go with the dialog (marks.ts).
    const v = d.marked;
    if (v) set((st) => ({ marks: clearMarks(st.marks, v) }));
    ownerOf(d, deps)?.confirm();
  };
  return () => {
    const d = get().dialog;
    if (!d) return;
    if (!d.seen?.length) return dispatch(d);
    // While the files are looked at, the dialog is closed and `busy` holds every other writing key back.
    set({ dialog: null, busy: 'checking that the files did not change since the dialog was shown' });
    track(
      recheck(get(), d.seen).then(
        (why) => {
          set({ busy: null });
          if (why) return sayClean(`not done: ${why}`, 'warn');
          if (get().dialog) return sayClean('not done: another dialog opened meanwhile; confirm again', 'warn');
          set({ dialog: d });
          dispatch(d);
        },
        (err: Error) => {
          set({ busy: null });
          sayClean(`not done: ${err.message}`, 'fail');
        },
      ),
    );
  };
}
