import type { StoreApi } from 'zustand/vanilla';
import { checkFiles, heldOf, heldTargets, noneHeld } from './held.js';
import type { AppState } from '../store/types.js';

// Keeps `held` (held.ts) true enough to draw from: one /proc pass over the
// Partials view's files when the workspace or the runs change, at most once a second (a
// burst of events costs one pass, not one per key or per event), and only while the view
// that shows it is open (the Partials view, a cell's detail): a stat per listed file is
// 0.9 s at 50k half-products, not something to pay on every other screen.

const MIN_GAP_MS = 1_000;

export function startHeldFeed(store: StoreApi<AppState>): () => void {
  let last = 0;
  let timer: NodeJS.Timeout | null = null;
  const later = (ms: number): void => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(pass, ms);
    timer.unref();
  };
  function pass(): void {
    timer = null;
    last = Date.now();
    const s = store.getState();
    const shown = s.view === 'partials' || s.detail !== null;
    const paths = shown ? heldTargets(s) : [];
    const next = paths.length ? heldOf(checkFiles(s, paths)) : noneHeld();
    if (next.byPath.size || s.held.byPath.size || next.unchecked !== s.held.unchecked) store.setState({ held: next });
  }
  pass();
  const unsubscribe = store.subscribe((st, prev) => {
    // Opening the view that shows it: one pass now, for the key that opened it.
    if (st.view !== prev.view || (st.detail === null) !== (prev.detail === null)) {
      if (timer) clearTimeout(timer);
      return pass();
    }
    if (st.ws === prev.ws && st.agents === prev.agents) return;
    const wait = last + MIN_GAP_MS - Date.now();
    if (wait <= 0 && !timer) pass();
    else if (!timer) later(Math.max(0, wait));
  });
  return () => {
    unsubscribe();
    if (timer) clearTimeout(timer);
  };
}
