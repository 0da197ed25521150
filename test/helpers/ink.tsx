import { stripVTControlCharacters } from 'node:util';
import { render } from 'ink-testing-library';
import type { LiveWorkspace } from '../../src/live/live-workspace.js';
import { disposeStore, type AppStore } from '../../src/ui/store/store.js';
import type { Theme } from '../../src/text/theme.js';
import { ControlRoom } from '../../components/ControlRoom.js';

// The control room in ink-testing-library, shared by the component tests: a fake terminal
// of a fixed size (its stdout has no rows of its own), one key per write with a render in
// between, and cleanup after each test.

export const tick = (ms = 25) => new Promise((r) => setTimeout(r, ms));

/** A raw frame without the selection's reverse video (SGR 7 and 27): under NO_COLOR that is
 *  the only SGR code left (issue 18 item 5), so what remains must have no escape at all. */
export const withoutReverse = (raw: string): string => raw.replaceAll('\u001b[7m', '').replaceAll('\u001b[27m', '');

const mounted: { unmount(): void; store: AppStore; live: LiveWorkspace }[] = [];

export async function renderRoom(store: AppStore, live: LiveWorkspace, theme: Theme, rows = 24, columns = 80) {
  const r = render(<ControlRoom store={store} theme={theme} />);
  // The size the room was last given: ink-testing-library's stdout has no `rows` of its own.
  const now = { rows, columns };
  const size = (rs: number, cs: number) => {
    Object.assign(now, { rows: rs, columns: cs });
    Object.defineProperty(r.stdout, 'rows', { value: rs, configurable: true });
    Object.defineProperty(r.stdout, 'columns', { value: cs, configurable: true });
    r.stdout.emit('resize');
  };
  size(rows, columns);
  await tick();
  mounted.push({ unmount: r.unmount, store, live });
  const raw = () => r.lastFrame() ?? '';
  const frame = () => stripVTControlCharacters(raw());
  const press = async (...keys: string[]) => {
    for (const k of keys) {
      r.stdin.write(k);
      // A lone Esc is delayed a tick by Ink.
      await tick(k === '\u001b' ? 80 : 25);
    }
  };
  return { r, raw, frame, press, size, dims: (): Readonly<typeof now> => now };
}

/** For afterEach: unmount every control room of the test and close its live workspace. */
export async function unmountAll(): Promise<void> {
  for (const m of mounted.splice(0)) {
    m.unmount();
    disposeStore(m.store);
    await m.live.close();
  }
}
