import { sanitizeLine } from '../sanitize.js';
import type { LivePort } from './live-port.js';
import type { AppState, Confirm, Pending, Tone } from './store-types.js';
import type { Seen } from './confirm-guard.js';

// The few verbs every store slice speaks (issue 9 item 3): say a message, ask for a
// confirmation, act on the disk with `busy` held, fail with a message (never a crash).
// One kit, one meaning each: before it the slices had three `say` (one sanitized), three
// `ask` and two `fail` (one of which cleared `busy`).

export type SetState = (partial: Partial<AppState> | ((s: AppState) => Partial<AppState>)) => void;

export interface KitDeps {
  set: SetState;
  get: () => AppState;
  track: (p: Promise<unknown>) => void;
}

/** What a slice with disk actions needs: the kit's deps plus the live workspace to rescan. */
export interface DiskDeps extends KitDeps {
  live: LivePort;
}

const errorText = (err: unknown): string => (err as Error)?.message ?? String(err);

export function storeKit({ set, track }: KitDeps) {
  /** A message the store composed from its own words. */
  const say = (text: string, tone: Tone = 'info'): void => set({ message: { text, tone } });
  /** A message that quotes the workspace, an agent or an error: sanitized here (src/sanitize.ts). */
  const sayClean = (text: string, tone: Tone = 'info'): void => say(sanitizeLine(text), tone);
  /** An error as a message; it leaves `busy` alone (only `act`, which set it, clears it). */
  const fail = (err: unknown): void => sayClean(errorText(err), 'fail');
  /** Open a confirmation; `at` is the clock reading its backup names were planned with. */
  const ask = (title: string, lines: string[], pending: Pending, at: Date | number, seen?: Seen[]): void =>
    set({ dialog: { title, lines, pending, at: typeof at === 'number' ? at : at.getTime(), ...(seen ? { seen } : {}) } satisfies Confirm });
  /**
   * Run `work` in the background; errors become a message, never a crash. With a `busy`
   * text it is the one disk action in flight: `busy` holds every other writing key back
   * until it ends, however it ends.
   */
  const act = (busy: string | null, work: () => Promise<void>): void => {
    if (busy === null) return track(work().catch(fail));
    set({ busy });
    track(
      work().then(
        () => set({ busy: null }),
        (err: unknown) => {
          set({ busy: null });
          fail(err);
        },
      ),
    );
  };
  return { say, sayClean, fail, ask, act };
}

/** A full rescan, then the store shows what the disk now holds. */
export const rescanner =
  ({ get, live }: Pick<DiskDeps, 'get' | 'live'>) =>
  async (): Promise<void> => {
    await live.refresh();
    get().setWorkspace(live.state, live.watching);
  };
