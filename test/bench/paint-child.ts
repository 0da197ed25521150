import { appendFileSync, cpSync, mkdtempSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { PassThrough, Writable } from 'node:stream';
import { createElement } from 'react';

// Bytes the control room writes to the terminal for one update (issue 10: ~1.4 KB when one
// count changed, all 24 rows rewritten). The real ControlRoom on a copy of the demo, 80×24,
// colour on, rendered by Ink into a counting stdout; a marker is appended to a half-product
// (the cell turns done: counts, tabs, the matrix cell change) and every byte until the screen
// settles is counted, with the lines that really differ. argv[2]: "incremental" or "full".

const REPO = resolve(import.meta.dirname, '..', '..', '..');
process.env.FORCE_COLOR = '3';
const ci = process.env.CI;
delete process.env.CI; // ink draws nothing until exit under CI (src/ui/entry/load.ts)
const { render } = await import('ink');
if (ci !== undefined) process.env.CI = ci;
const { createLiveWorkspace } = await import('../../src/live/live-workspace.js');
const { createAppStore, disposeStore } = await import('../../src/ui/store/store.js');
const { COLOR_THEME } = await import('../../src/text/theme.js');
const { ControlRoom } = await import('../../components/ControlRoom.js');
const { anchoredStdout } = await import('../../src/ui/term/anchored-stdout.js');

const incremental = process.argv[2] === 'incremental';
const dir = mkdtempSync(join(tmpdir(), 'checkroom-paint-'));
cpSync(join(REPO, 'demo-workspace'), dir, { recursive: true, filter: (s) => !s.includes('.checkroom') });

let bytes = 0;
let screen = '';
class Term extends Writable {
  isTTY = true;
  columns = 80;
  rows = 24;
  _write(chunk: Buffer, _enc: string, cb: () => void): void {
    bytes += chunk.length;
    screen += chunk.toString('utf8');
    cb();
  }
}
const stdout = new Term();
const stdin = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => stdin, ref: () => stdin, unref: () => stdin });

const live = await createLiveWorkspace(dir, { watch: true });
const store = createAppStore({ live });
const app = render(createElement(ControlRoom, { store, theme: COLOR_THEME }), {
  // As src/ui/entry/entry.ts draws: incremental frames anchored at the top-left corner.
  stdout: incremental ? anchoredStdout(stdout as unknown as NodeJS.WriteStream) : (stdout as unknown as NodeJS.WriteStream),
  stdin: stdin as unknown as NodeJS.ReadStream,
  exitOnCtrlC: false,
  patchConsole: false,
  incrementalRendering: incremental,
});
const settle = async (): Promise<void> => {
  // Quiet for 300 ms: Ink's frames and the live model's batches are done.
  for (let last = -1; last !== bytes; ) {
    last = bytes;
    await new Promise((r) => setTimeout(r, 300));
  }
};
const doneOf = (): number => store.getState().ws.cells.filter((c) => c.status === 'done').length;
await settle();
const before = doneOf();
bytes = 0;
screen = '';
appendFileSync(join(dir, 'research/ch09-research.md'), '\n<!-- RESEARCH_COMPLETE -->\n');
for (let i = 0; i < 100 && doneOf() === before; i++) await new Promise((r) => setTimeout(r, 20));
await settle();
const updateBytes = bytes;
app.unmount();
disposeStore(store);
await live.close();
rmSync(dir, { recursive: true, force: true });
process.stdout.write(JSON.stringify({ incremental, bytes: updateBytes, done: [before, doneOf()], writes: screen.length > 0, screen: process.env.PAINT_DUMP ? screen : undefined }));
process.exit(0);
