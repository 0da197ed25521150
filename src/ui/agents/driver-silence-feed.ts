import { hostname } from 'node:os';
import type { StoreApi } from 'zustand/vanilla';
import { driverLastInput } from '../../socket/handover.js';
import type { AppState } from '../store/types.js';

// A read-only control room asks the driver, through its control socket, when its terminal
// last sent a key: a driver whose client vanished without a close looks
// alive, and the banner says how long it has been silent beside the key that takes over.
// One ping every POLL_MS, only while another instance of this host drives.

export const POLL_MS = 5000;

export function startDriverSilenceFeed(store: StoreApi<AppState>, pollMs = POLL_MS): () => void {
  let asking = false;
  const poll = (): void => {
    const s = store.getState();
    const h = s.agents.snap?.role === 'readonly' ? s.agents.snap.holder : null;
    if (asking || !h || h.host !== hostname()) return;
    asking = true;
    void driverLastInput(s.ws.root)
      .then((at) => {
        if (store.getState().agents.driverLastInput !== at) store.setState((st) => ({ agents: { ...st.agents, driverLastInput: at } }));
      })
      .finally(() => (asking = false));
  };
  const timer = setInterval(poll, pollMs);
  timer.unref();
  poll();
  return () => clearInterval(timer);
}
