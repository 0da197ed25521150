import { stripVTControlCharacters } from 'node:util';
import { render } from 'ink-testing-library';
import { createLiveWorkspace, type LiveOptions, type LiveWorkspace } from '../../src/live/live-workspace.js';
import { createAppStore, disposeStore, type AppStore } from '../../src/ui/store/store.js';
import type { StoreOptions } from '../../src/ui/store/types.js';
import { loadConfig } from '../../src/pipeline/config/config.js';
import { openSupervisor, type Supervisor } from '../../src/run/supervisor/supervisor.js';
import { COLOR_THEME, type Theme } from '../../src/text/theme.js';
import { ControlRoom } from '../../components/ControlRoom.js';
import { tick } from './ink.js';

// The control room driving real agents: a real supervisor opened on a workspace, the live
// workspace and the store over it, rendered at 80×24 in ink-testing-library. Frames are
// polled until the text appears, with generous timeouts; nothing asserts on wall-clock time.

export interface AgentsRoomOptions {
  theme?: Theme;
  /** The store's options besides the live workspace and the agents. */
  store?: Omit<StoreOptions, 'live' | 'agents'>;
  live?: LiveOptions;
  /** How long waitFor waits before it fails with the frame. */
  timeout?: number;
}

const mounted: { unmount(): void; store: AppStore; live: LiveWorkspace; sup: Supervisor }[] = [];

/** Opens a supervisor on `root` and mounts the control room over it; closeAgentsRooms() ends both. */
export async function mountAgentsRoom(root: string, o: AgentsRoomOptions = {}) {
  const config = await loadConfig(root);
  const sup = await openSupervisor({ root, config });
  const live = await createLiveWorkspace(root, o.live ?? { watch: false });
  const store = createAppStore({ ...o.store, live, agents: { sup, config } });
  const r = render(<ControlRoom store={store} theme={o.theme ?? COLOR_THEME} />);
  Object.defineProperty(r.stdout, 'rows', { value: 24, configurable: true });
  Object.defineProperty(r.stdout, 'columns', { value: 80, configurable: true });
  r.stdout.emit('resize');
  await tick();
  mounted.push({ unmount: r.unmount, store, live, sup });
  const raw = () => r.lastFrame() ?? '';
  const frame = () => stripVTControlCharacters(raw());
  const press = async (...keys: string[]) => {
    for (const k of keys) {
      r.stdin.write(k);
      // A lone Esc is delayed a tick by Ink.
      await tick(k === '\u001b' ? 80 : 30);
    }
  };
  /** The frame once it holds `what` (text, pattern or a test of the store); `look` reads each frame. */
  const waitFor = async (what: string | RegExp | (() => boolean), timeout = o.timeout ?? 20_000, look = frame) => {
    const t0 = Date.now();
    for (;;) {
      const f = look();
      if (typeof what === 'function' ? what() : typeof what === 'string' ? f.includes(what) : what.test(f)) return f;
      if (Date.now() - t0 > timeout) throw new Error(`timed out waiting for ${String(what)}; frame:\n${f}`);
      await tick(20);
    }
  };
  return { frame, raw, press, waitFor, store, sup, live };
}

/** For afterEach: the rooms unmounted, last first, each store, live workspace and supervisor closed (runs cancelled). */
export async function closeAgentsRooms(): Promise<void> {
  for (const m of mounted.splice(0).reverse()) {
    m.unmount();
    disposeStore(m.store);
    await m.live.close();
    await m.sup.close({ cancel: true });
  }
}
