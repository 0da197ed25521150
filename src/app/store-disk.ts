import type { LivePort } from './live-port.js';
import type { AppState } from './store-types.js';

// What every writing action of the store shares: one disk action in flight at a time
// (`busy`), errors turned into a message (never a crash), and a rescan afterwards so the
// screen shows what the disk now holds.

export interface DiskDeps {
  set: (partial: Partial<AppState> | ((s: AppState) => Partial<AppState>)) => void;
  get: () => AppState;
  live: LivePort;
  track: (p: Promise<unknown>) => void;
}

export function diskActions({ set, get, live, track }: DiskDeps) {
  const fail = (err: unknown): void => set({ busy: null, message: { text: (err as Error)?.message ?? String(err), tone: 'fail' } });
  /** Run `work` as the one disk action in flight; errors become a message, never a crash. */
  const act = (busy: string, work: () => Promise<void>): void => {
    set({ busy });
    track(work().then(() => set({ busy: null }), fail));
  };
  const rescan = async (): Promise<void> => {
    await live.refresh();
    get().setWorkspace(live.state, live.watching);
  };
  return { fail, act, rescan };
}
