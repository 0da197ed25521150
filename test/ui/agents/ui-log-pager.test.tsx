import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import chalk from 'chalk';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLiveWorkspace } from '../../../src/live/live-workspace.js';
import { createAppStore } from '../../../src/ui/store/store.js';
import { NO_COLOR_THEME } from '../../../src/text/theme.js';
import { pickedCell } from '../../../src/ui/pager/slice.js';
import { setOutputCharset } from '../../../src/text/charset.js';
import { renderRoom, tick, unmountAll, withoutReverse } from '../../helpers/ink.js';
import { copyDemo, REPO } from '../../helpers/workspace.js';
import { writeAttempts } from '../../helpers/attempt-logs.js';

// The log pager (docs/logs.md, "The pager") on ink-testing-library frames at 80×24 under
// NO_COLOR: `L` on the Progress cell under the cursor opens its latest attempt; `[`/`]` switch
// attempts; `/` searches with n/N; `e` jumps to the error; `r` shows the raw line; `w` wraps;
// g/G/PgDn move; Esc closes. The logs are real files named by real journal lines.

const STREAM = readFileSync(join(REPO, 'test/fixtures/claude-stream-write.jsonl'), 'utf8').trimEnd().split('\n');

// As a terminal gets it: NO_COLOR drops the colours, not the reverse video of a hit.
const level = chalk.level;
beforeEach(() => {
  chalk.level = 3;
});
afterEach(async () => {
  chalk.level = level;
  setOutputCharset('unicode');
  await unmountAll();
});

async function mount(o: { ascii?: boolean } = {}) {
  const dir = copyDemo();
  const live = await createLiveWorkspace(dir, { watch: false });
  const store = createAppStore({ live, ascii: o.ascii });
  const cell = pickedCell(store.getState());
  if ('why' in cell) throw new Error(cell.why);
  const noise = Array.from({ length: 60 }, (_, i) => `working on section ${i + 1}`);
  const written = writeAttempts(dir, [
    {
      unit: cell.unit,
      step: cell.step,
      attempts: [
        { lines: ['starting', ...noise.slice(0, 30), 'Error: 429 Too Many Requests', ...noise.slice(30), 'a later 429 mention', 'giving up \u001b]0;pwned\u0007'], class: 'RATE_LIMITED', error: 'Error: 429 Too Many Requests (exit 1)' },
        { lines: STREAM, class: 'SUCCESS' },
      ],
    },
  ]);
  const room = await renderRoom(store, live, NO_COLOR_THEME, 24, 80);
  const waitFor = async (what: string | RegExp, timeout = 5000) => {
    const t0 = Date.now();
    while (!(typeof what === 'string' ? room.frame().includes(what) : what.test(room.frame()))) {
      if (Date.now() - t0 > timeout) throw new Error(`timed out waiting for ${String(what)}; frame:\n${room.frame()}`);
      await tick(20);
    }
    return room.frame();
  };
  const open = async () => {
    await room.press('L');
    await store.getState().idle();
    return waitFor(/^(──|--) log/m);
  };
  return { ...room, store, cell, written, waitFor, open, dir };
}

const rowsOf = (f: string) => f.split('\n');

describe('the log pager', () => {
  it('L opens the latest attempt of the cell under the cursor, as readable events; r shows the raw line', async () => {
    const m = await mount();
    const f = await m.open();
    expect(f).toContain(`── log · ${m.cell.unit} ${m.cell.step} · attempt 2 (2 of 2) · writer · SUCCESS · `);
    expect(f).toMatch(/SUCCESS · …?[-\w]*\.log\n/);
    expect(f).toMatch(/^2 assistant: Writing the file\./m);
    expect(f).toMatch(/^3 → Write \/tmp\/cx-JmBCs2\/out\.md/m);
    expect(f).toMatch(/result success · \$0\.0216/);
    expect(f).toContain('lines 1-6 of 6 · events');
    expect(f).not.toContain('{"type"');
    await m.press('r');
    const raw = m.frame();
    expect(raw).toMatch(/^2 \{"type":"assistant"/m);
    expect(raw).toContain('· raw');
    // Every row fits 80 columns and 24 rows (Ink keeps one row free).
    for (const l of rowsOf(raw)) expect(l.length).toBeLessThanOrEqual(80);
    expect(rowsOf(raw).length).toBeLessThanOrEqual(23);
    await m.press('\u001b');
    expect(m.frame()).not.toContain('── log · ');
    expect(m.store.getState().pager).toBeNull();
  });

  it('[ and ] switch attempts; G, g and PgDn move; the escapes in a line are drawn escaped', async () => {
    const m = await mount();
    await m.open();
    await m.press('[');
    let f = m.frame();
    expect(f).toContain('attempt 1 (1 of 2) · writer · RATE_LIMITED');
    expect(f).toMatch(/^ 1 starting/m);
    expect(f).toMatch(/lines 1-19 of 6\d/);
    await m.press('G');
    f = m.frame();
    expect(f).toMatch(/6\d giving up \\e\]0;pwned\\a/);
    expect(withoutReverse(m.raw())).not.toMatch(/\u0007|\u001b\]/);
    await m.press('g');
    expect(m.frame()).toContain('lines 1-19 of');
    await m.press('\u001b[6~');
    expect(m.frame()).toContain('lines 19-37 of');
    await m.press('[');
    expect(m.frame()).toContain('this is the first attempt');
    await m.press(']');
    expect(m.frame()).toContain('attempt 2 (2 of 2)');
  });

  it('/ searches with a highlighted hit; n and N go to the next and previous; a pattern RE2 refuses says why', async () => {
    const m = await mount();
    await m.open();
    await m.press('[');
    await m.press('/', '4', '2', '9');
    expect(m.frame()).toContain('/429_');
    await m.press('\r');
    let f = m.frame();
    expect(f).toContain('/429 at line 32');
    expect(f).toMatch(/32 Error: 429 Too Many Requests/);
    // The hit is in reverse video (not a colour: it shows under NO_COLOR).
    expect(m.raw()).toContain('\u001b[7m429\u001b[27m');
    await m.press('n');
    f = m.frame();
    expect(f).toContain('/429 at line 63');
    expect(f).toMatch(/63 a later 429 mention/);
    await m.press('n');
    expect(m.frame()).toContain('wrapped to the top');
    expect(m.frame()).toContain('/429 at line 32');
    await m.press('N');
    expect(m.frame()).toContain('/429 at line 63');
    await m.press('/', '(', '?', '=', 'x', ')', '\r');
    expect(m.frame()).toContain('lookahead');
  });

  it('e jumps to the line the classifier blamed, marked', async () => {
    const m = await mount();
    await m.open();
    await m.press('[', 'G', 'e');
    const f = m.frame();
    expect(f).toContain('the error: Error: 429 Too Many Requests (exit 1)');
    const row = rowsOf(f).find((l) => l.includes('Error: 429 Too Many'))!;
    expect(row).toMatch(/^32 /);
    expect(m.store.getState().pager!.mark).toBe(31);
  });

  it('w wraps a long line onto more rows instead of cutting it', async () => {
    const m = await mount();
    await m.open();
    const cut = m.frame();
    expect(rowsOf(cut).some((l) => l.includes('File created successfully') && l.endsWith('…'))).toBe(true);
    await m.press('w');
    const f = m.frame();
    expect(f).toContain('· wrap');
    expect(f).toContain('no need to Read it back');
  });

  it('under --ascii the pager sends no byte above 0x7F', async () => {
    setOutputCharset('symbols');
    const m = await mount({ ascii: true });
    await m.open();
    await m.press('[', 'G');
    expect(m.frame()).toContain('giving up');
    expect(withoutReverse(m.raw()).replace(/\u001b\[[0-9;]*m/g, '')).toMatch(/^[\x00-\x7f]*$/);
  });

  it('L on a cell never launched says so, and on a Health agent row says to pick a cell', async () => {
    const m = await mount();
    await m.press('j');
    await m.press('L');
    await m.store.getState().idle();
    expect(m.frame()).toMatch(/no attempt in the journal, so no log|no cell selected/);
    expect(m.store.getState().pager).toBeNull();
  });
});
