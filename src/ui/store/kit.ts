import { sanitizeLine } from '../../text/sanitize.js';
import type { LivePort } from '../agents/live-port.js';
import type { AppState, Confirm, Pending, Tone } from './types.js';
import type { Seen } from '../keys/confirm-guard.js';
import type { MarkView } from '../marks/marks.js';

// The few verbs every store slice speaks: say a message, ask for a
// confirmation, act on the disk with `busy` held, fail with a message (never a crash).
// One kit, one meaning each: before it the slices had three `say` (one sanitized), three
// `ask` and two `fail` (one of which cleared `busy`).

/** A confirmation as a value: what a planner returns instead of opening it. */
export interface Ask {
  title: string;
  lines: string[];
  pending: Pending;
  /** The files it touches as they were when planned (confirm-guard.ts). */
  seen?: Seen[];
  /** It acts on this view's marked rows (marks.ts). */
  marked?: MarkView;
}

/**
 * What a pure planner decides: a message, a confirmation, or a change of
 * the state. Plain data, so a planner is tested on plain values; `apply` below makes it so.
 * A planner's message names workspace things (paths, units, agents), so it is sanitized.
 */
export type Decision = { say: string; tone: Tone } | { ask: Ask } | { change: Partial<AppState> };

/** A planner that may go on to an effect with `T`, or stops with a decision. */
export type Planned<T> = Decision | { go: T };

export const said = (say: string, tone: Tone = 'info'): Decision => ({ say, tone });

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
  /** A message that quotes the workspace, an agent or an error: sanitized here (src/text/sanitize.ts). */
  const sayClean = (text: string, tone: Tone = 'info'): void => say(sanitizeLine(text), tone);
  /** An error as a message; it leaves `busy` alone (only `act`, which set it, clears it). */
  const fail = (err: unknown): void => sayClean(errorText(err), 'fail');
  /** Open a confirmation; `at` is the clock reading its backup names were planned with. */
  const ask = (title: string, lines: string[], pending: Pending, at: Date | number, seen?: Seen[], marked?: MarkView): void =>
    set({ dialog: { title, lines, pending, at: typeof at === 'number' ? at : at.getTime(), ...(seen ? { seen } : {}), ...(marked ? { marked } : {}) } satisfies Confirm });
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
  /** Make a planner's decision so; `at` as for `ask`. */
  const apply = (d: Decision, at: Date | number): void => {
    if ('say' in d) return sayClean(d.say, d.tone);
    if ('ask' in d) return ask(d.ask.title, d.ask.lines, d.ask.pending, at, d.ask.seen, d.ask.marked);
    // An empty change (a key that is answered by doing nothing) notifies no subscriber.
    if (Object.keys(d.change).length) set(d.change);
  };
  /** The planner's `go` value, or null after applying its decision. */
  const settle = <T>(p: Planned<T>, at: Date | number): T | null => {
    if ('go' in p) return p.go;
    apply(p, at);
    return null;
  };
  return { say, sayClean, fail, ask, act, apply, settle };
}

/** A full rescan, then the store shows what the disk now holds. */
export const rescanner =
  ({ get, live }: Pick<DiskDeps, 'get' | 'live'>) =>
  async (): Promise<void> => {
    await live.refresh();
    get().setWorkspace(live.state, live.watching);
  };
