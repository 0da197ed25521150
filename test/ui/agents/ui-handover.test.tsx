import { afterEach, describe, expect, it } from 'vitest';
import { stripVTControlCharacters } from 'node:util';
import { render } from 'ink-testing-library';
import { createLiveWorkspace } from '../../../src/live/live-workspace.js';
import { createAppStore, disposeStore } from '../../../src/ui/store/store.js';
import { COLOR_THEME } from '../../../src/text/theme.js';
import { loadConfig } from '../../../src/pipeline/config/config.js';
import { openSupervisor } from '../../../src/run/supervisor/supervisor.js';
import { readJournal, type SessionEvent } from '../../../src/run/journal/journal.js';
import { startControlServer } from '../../../src/socket/server.js';
import { ControlRoom } from '../../../components/ControlRoom.js';
import { copyDemo, tempDir } from '../../helpers/workspace.js';
import { statusText } from '../../helpers/status-text.js';

// Issue 17 item 3, in one process with real sockets: a driving supervisor serves its control
// socket with the handover port the entry gives it; its terminal sent its last key 14 minutes
// ago. A second control room is read-only: its banner offers T and says how long the driver's
// terminal has been silent; T asks the driver, which leaves (as the entry does on `handover`),
// and the second takes over: READ-ONLY gone, the session stop journalled with reason handover.

const cleanup: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});
const tick = (ms = 30): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('read-only control room: T takes over from a driver whose terminal is silent', () => {
  it('the banner says since when the driver had no key; T makes it hand over and this one drives', async () => {
    const root = copyDemo();
    // The observer's feed asks through process.env's runtime directory: a private one, put back after.
    const was = process.env.XDG_RUNTIME_DIR;
    process.env.XDG_RUNTIME_DIR = tempDir('checkroom-xdg-');
    cleanup.push(() => void (was === undefined ? delete process.env.XDG_RUNTIME_DIR : (process.env.XDG_RUNTIME_DIR = was)));
    const config = await loadConfig(root);
    const driver = await openSupervisor({ root, config });
    expect(driver.snapshot().role).toBe('driver');
    const driverLive = await createLiveWorkspace(root, { watch: false });
    let begun = 0;
    const server = await startControlServer(
      root,
      {
        live: driverLive,
        pointer: false,
        handover: {
          role: () => driver.snapshot().role,
          lastInputAt: () => Date.now() - 14 * 60_000 - 5_000,
          // What ui-entry.ts does on `handover`: the runs left running, the stop journalled, the lock released.
          begin: () => void (begun++, driver.close({ leave: true, reason: 'handover' })),
        },
      },
      statusText(),
    );
    cleanup.push(
      () => driverLive.close(),
      () => server?.close(),
      () => driver.close({ cancel: true }),
    );

    const sup = await openSupervisor({ root, config });
    const live = await createLiveWorkspace(root, { watch: false });
    const store = createAppStore({ live, agents: { sup, config } });
    const r = render(<ControlRoom store={store} theme={COLOR_THEME} />);
    Object.defineProperty(r.stdout, 'columns', { value: 120, configurable: true });
    Object.defineProperty(r.stdout, 'rows', { value: 30, configurable: true });
    r.stdout.emit('resize');
    cleanup.push(
      () => live.close(),
      () => sup.close({ cancel: true }),
      () => disposeStore(store),
      () => r.unmount(),
    );
    const frame = (): string => stripVTControlCharacters(r.lastFrame() ?? '');
    const waitFor = async (ok: (f: string) => boolean, what: string): Promise<string> => {
      for (let i = 0; i < 600; i++) {
        const f = frame();
        if (ok(f)) return f;
        await tick(50);
      }
      throw new Error(`timed out waiting for ${what}; the screen:\n${frame()}`);
    };

    await waitFor((f) => new RegExp(`read-only: pid ${process.pid}@\\S+ drives · T take over · its terminal silent 14 min`).test(f), 'the banner');
    expect(begun).toBe(0);
    r.stdin.write('T');
    await waitFor((f) => !/READ-ONLY|read-only: pid/.test(f), 'this instance to drive');
    expect(begun).toBe(1);
    expect(sup.snapshot().role).toBe('driver');
    const stop = (await readJournal(root)).events.filter((e): e is SessionEvent => e.type === 'session' && e.kind === 'stop').at(-1);
    expect(stop).toMatchObject({ reason: 'handover' });
  }, 60_000);
});
