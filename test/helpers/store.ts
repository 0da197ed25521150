import { createLiveWorkspace, type LiveWorkspace } from '../../src/live/live-workspace.js';
import { createAppStore, disposeStore, type AppStore } from '../../src/ui/store/store.js';
import { toTokens, type InkKeyLike, type KeyName, type KeyToken } from '../../src/ui/keys/keys.js';
import type { AppState, StoreOptions } from '../../src/ui/store/types.js';

// The store without React (issue 9 item 3): a real live workspace on a temp directory, keys
// fed as KeyTokens straight into `feed`, and `idle()` awaited instead of a sleep per key.
// What a test asserts is the state and the files on disk; the screen is the component tests'.

/** The clock the tests pin: backup names read `.bak.20261130-051200` (local time, any zone). */
export const PINNED_NOW = (): Date => new Date(2026, 10, 30, 5, 12, 0);
export const STAMP = '20261130-051200';

const NAMED: Record<string, Partial<KeyToken> & { name: KeyName }> = {
  enter: { name: 'return' },
  esc: { name: 'escape' },
  tab: { name: 'tab' },
  'shift-tab': { name: 'tab', shift: true },
  backspace: { name: 'backspace' },
  up: { name: 'up' },
  down: { name: 'down' },
  left: { name: 'left' },
  right: { name: 'right' },
  pgup: { name: 'pageUp' },
  pgdn: { name: 'pageDown' },
  home: { name: 'home' },
  end: { name: 'end' },
};

const PLAIN: InkKeyLike = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageUp: false,
  pageDown: false,
  return: false,
  escape: false,
  tab: false,
  backspace: false,
  delete: false,
  ctrl: false,
  shift: false,
};

/** `'enter'`, `'esc'`, `'shift-tab'`, `'ctrl-c'`… are one named key; any other string is typed, one token per character (as toTokens splits a burst). */
export function tokens(...keys: string[]): KeyToken[] {
  return keys.flatMap((k): KeyToken[] => {
    const named = NAMED[k];
    if (named) return [{ ch: '', ctrl: false, shift: false, ...named }];
    const ctrl = /^ctrl-(.)$/.exec(k);
    if (ctrl) return toTokens(ctrl[1], { ...PLAIN, ctrl: true });
    return toTokens(k, PLAIN);
  });
}

export interface StoreRoom {
  store: AppStore;
  live: LiveWorkspace;
  root: string;
  s: () => AppState;
  /** Feed keys, waiting only for the store's own disk actions after each one (no sleep). */
  press: (...keys: string[]) => Promise<void>;
  /** Feed keys in one burst, without waiting in between (as a fast typist or tmux does). */
  burst: (...keys: string[]) => void;
}

const open: StoreRoom[] = [];

/** `opts` may be built from the live workspace (the agents' supervisor and config). */
export async function openStore(root: string, opts: Omit<StoreOptions, 'live'> | ((live: LiveWorkspace) => Omit<StoreOptions, 'live'>) = {}): Promise<StoreRoom> {
  const live = await createLiveWorkspace(root, { watch: false });
  const store = createAppStore({ now: PINNED_NOW, ...(typeof opts === 'function' ? opts(live) : opts), live });
  await store.getState().idle();
  const s = () => store.getState();
  const room: StoreRoom = {
    store,
    live,
    root,
    s,
    press: async (...keys) => {
      for (const t of tokens(...keys)) {
        s().feed(t);
        await s().idle();
      }
    },
    burst: (...keys) => {
      for (const t of tokens(...keys)) s().feed(t);
    },
  };
  open.push(room);
  return room;
}

/** For afterEach: dispose every store of the test and close its live workspace. */
export async function closeStores(): Promise<void> {
  for (const r of open.splice(0)) {
    await r.s().idle();
    disposeStore(r.store);
    await r.live.close();
  }
}

/** A bounded wait for something a real process does (an agent run); never a wall-clock assertion. */
export async function until<T>(what: () => T | null | undefined | false, label: string, timeout = 20_000): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const v = what();
    if (v) return v;
    if (Date.now() - t0 > timeout) throw new Error(`timed out waiting for ${label}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
