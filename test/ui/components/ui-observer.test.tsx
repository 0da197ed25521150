import { afterEach, describe, expect, it } from 'vitest';
import { stripVTControlCharacters } from 'node:util';
import { render } from 'ink-testing-library';
import { createLiveWorkspace, type LiveWorkspace } from '../../../src/live/live-workspace.js';
import { createAppStore, disposeStore, type AppStore } from '../../../src/ui/store/store.js';
import { COLOR_THEME } from '../../../src/text/theme.js';
import { loadConfig } from '../../../src/pipeline/config/config.js';
import { openSupervisor, type Supervisor } from '../../../src/run/supervisor/supervisor.js';
import { ControlRoom } from '../../../components/ControlRoom.js';
import { tempDir, writeFakeAgentWs } from '../../helpers/workspace.js';

// Issue 8 item 5 in the control room: an observer (a second, read-only instance) shows the
// driver's run as the driver does — in flight in the Plan, counted running in the header,
// its cell running (not a half-product) — and the store's live writers name it (issue 8
// item 1: the one place triage asks). Real supervisors, the demo's fake agent, real files.

const tick = (ms = 25) => new Promise((r) => setTimeout(r, ms));

// Slow enough to be watched mid-write (sections every 1-3 s).
const makeWs = (): string => writeFakeAgentWs(tempDir('checkroom-ui-observer-'), { batched: false, speed: 0.1, roles: [], tail: [] });

const mounted: { unmount(): void; store: AppStore; live: LiveWorkspace; sup: Supervisor }[] = [];
afterEach(async () => {
  for (const m of mounted.splice(0).reverse()) {
    m.unmount();
    disposeStore(m.store);
    await m.live.close();
    await m.sup.close({ cancel: true });
  }
});

async function mount(root: string) {
  const config = await loadConfig(root);
  const sup = await openSupervisor({ root, config });
  const live = await createLiveWorkspace(root, { watch: false, poll: true, pollMs: 200 });
  const store = createAppStore({ live, agents: { sup, config } });
  const r = render(<ControlRoom store={store} theme={COLOR_THEME} />);
  Object.defineProperty(r.stdout, 'rows', { value: 24, configurable: true });
  Object.defineProperty(r.stdout, 'columns', { value: 80, configurable: true });
  r.stdout.emit('resize');
  await tick();
  mounted.push({ unmount: r.unmount, store, live, sup });
  const frame = () => stripVTControlCharacters(r.lastFrame() ?? '');
  const press = async (k: string) => {
    r.stdin.write(k);
    await tick(30);
  };
  const waitFor = async (what: RegExp | (() => boolean), timeout = 20_000) => {
    const t0 = Date.now();
    for (;;) {
      const f = frame();
      if (typeof what === 'function' ? what() : what.test(f)) return f;
      if (Date.now() - t0 > timeout) throw new Error(`timed out waiting for ${String(what)}; frame:\n${f}`);
      await tick(20);
    }
  };
  return { frame, press, waitFor, store, sup, live };
}

describe('an observer in the control room', () => {
  it("shows the driver's run running, with its log, and names it a live writer", async () => {
    const root = makeWs();
    const driver = await mount(root);
    const run = driver.sup.launch('ch01', 'research');
    const o = await mount(root);
    expect(o.sup.snapshot().role).toBe('readonly');
    await o.waitFor(() => o.store.getState().agents.writers.includes('ch01/research'));
    await o.press('3');
    await o.waitFor(/ch01 research\s+running/);
    await o.waitFor(/running \(driver's\) pid \d+/);
    await o.waitFor(/· 1 running/);
    expect(o.live.state.cells.find((c) => c.unit === 'ch01' && c.step === 'research')?.status).toBe('running');
    await run;
    // The driver's run ended: the observer's writers follow the journal.
    await o.waitFor(() => o.store.getState().agents.writers.length === 0);
  }, 60_000);
});
