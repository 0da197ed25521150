import { appendFileSync, cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { PassThrough, Writable } from 'node:stream';
import { createElement } from 'react';

// Records the control room's frames as Ink writes them, for the terminal-model bench
// (term-bench.ts) and the test that both screen models agree (test/ui/term/xterm-model.test.ts):
// docs/decisions/terminal-model.md. The real ControlRoom on a copy of the demo, colour on,
// rendered twice from one store: incremental (what src/ui/entry/entry.ts draws, before the
// anchoring) and full redraw (Ink's default). Steps: the first frames, a marker turns a cell
// done, the help overlay scrolled twenty rows, a filter typed in CJK (a wide-character row).
// `node dist/test/bench/term-record.js 80 24` writes test/fixtures/term-frames/80x24.json.

const REPO = resolve(import.meta.dirname, '..', '..', '..');
const [cols, rows] = [Number(process.argv[2] ?? 80), Number(process.argv[3] ?? 24)];
process.env.FORCE_COLOR = '3';
const ci = process.env.CI;
delete process.env.CI; // ink draws nothing until exit under CI (src/ui/entry/load.ts)
const { render } = await import('ink');
if (ci !== undefined) process.env.CI = ci;
const { createLiveWorkspace } = await import('../../src/live/live-workspace.js');
const { createAppStore, disposeStore } = await import('../../src/ui/store/store.js');
const { COLOR_THEME } = await import('../../src/text/theme.js');
const { ControlRoom } = await import('../../components/ControlRoom.js');

const dir = mkdtempSync(join(tmpdir(), 'checkroom-term-record-'));
cpSync(join(REPO, 'demo-workspace'), dir, { recursive: true, filter: (s) => !s.includes('.checkroom') });

interface Step {
  name: string;
  incremental: string[];
  full: string[];
}
const steps: Step[] = [];
let step: Step = { name: 'first', incremental: [], full: [] };
let writes = 0;

class Term extends Writable {
  isTTY = true;
  columns = cols;
  rows = rows;
  constructor(private readonly into: 'incremental' | 'full') {
    super();
  }
  _write(chunk: Buffer, _enc: string, cb: () => void): void {
    step[this.into].push(chunk.toString('utf8'));
    writes++;
    cb();
  }
}
const stdinOf = () => {
  const s = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => s, ref: () => s, unref: () => s });
  return s;
};

const live = await createLiveWorkspace(dir, { watch: true });
const store = createAppStore({ live });
const stdins = [stdinOf(), stdinOf()];
const apps = (['incremental', 'full'] as const).map((mode, i) =>
  render(createElement(ControlRoom, { store, theme: COLOR_THEME }), {
    stdout: new Term(mode) as unknown as NodeJS.WriteStream,
    stdin: stdins[i] as unknown as NodeJS.ReadStream,
    exitOnCtrlC: false,
    patchConsole: false,
    incrementalRendering: mode === 'incremental',
  }),
);
const settle = async (quietMs = 300): Promise<void> => {
  for (let last = -1; last !== writes; ) {
    last = writes;
    await new Promise((r) => setTimeout(r, quietMs));
  }
};
const next = (name: string): void => {
  steps.push(step);
  step = { name, incremental: [], full: [] };
};
// Keys go to one app: both dispatch into the one store, which the other then draws.
const press = async (key: string): Promise<void> => {
  stdins[0]!.write(key);
  await settle(60);
};

await settle();
next('marker');
appendFileSync(join(dir, 'research/ch09-research.md'), '\n<!-- RESEARCH_COMPLETE -->\n');
await settle();
next('scroll');
await press('?');
for (let i = 0; i < 20; i++) await press('j');
await press('\u001b');
next('wide');
await press('/');
for (const ch of '漢字テスト') await press(ch);
await press('\u001b');
await settle();
steps.push(step);
for (const app of apps) app.unmount();
disposeStore(store);
await live.close();
rmSync(dir, { recursive: true, force: true });
const out = join(REPO, 'test/fixtures/term-frames');
mkdirSync(out, { recursive: true });
writeFileSync(join(out, `${cols}x${rows}.json`), `${JSON.stringify({ cols, rows, steps }, null, 1)}\n`);
console.log(steps.map((s) => `${s.name}: ${s.incremental.length} incremental, ${s.full.length} full`).join('\n'));
process.exit(0);
