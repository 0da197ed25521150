import { afterEach, describe, expect, it } from 'vitest';
import { createLiveWorkspace } from '../../../src/live/live-workspace.js';
import { createAppStore } from '../../../src/ui/store/store.js';
import { COLOR_THEME, NO_COLOR_THEME, type Theme } from '../../../src/text/theme.js';
import { renderRoom, tick, unmountAll, withoutReverse } from '../../helpers/ink.js';
import { copyDemo } from '../../helpers/workspace.js';
import { setOutputCharset } from '../../../src/text/charset.js';
import { recordedPast, writeJournal } from '../../helpers/history-journal.js';

// The History view (key 6), time travel and the post-mortem at 80×24, on a copy of the demo
// with a recorded past (docs/history.md).

async function mount(o: { theme?: Theme; ascii?: boolean; digest?: boolean } = {}) {
  const dir = copyDemo();
  writeJournal(dir, recordedPast(Date.now()));
  const live = await createLiveWorkspace(dir, { watch: false });
  const store = createAppStore({ live, ascii: o.ascii, history: { digest: o.digest }, now: () => new Date(2026, 10, 30, 5, 12, 0) });
  const room = await renderRoom(store, live, o.theme ?? COLOR_THEME, 24, 80);
  const waitFor = async (text: string | RegExp, timeout = 5000) => {
    const t0 = Date.now();
    while (!(typeof text === 'string' ? room.frame().includes(text) : text.test(room.frame()))) {
      if (Date.now() - t0 > timeout) throw new Error(`timed out waiting for ${text}; frame:\n${room.frame()}`);
      await tick(20);
    }
  };
  return { ...room, store, waitFor };
}

afterEach(async () => {
  await unmountAll();
  setOutputCharset('unicode');
});

const rowOf = (frame: string, unit: string) => frame.split('\n').find((l) => l.includes(` ${unit} `) || l.includes(`›${unit} `)) ?? '';
const header = (frame: string) => frame.split('\n').slice(0, 3).join('\n');

describe('History view', () => {
  it('6 opens it: the journal newest first, runs with class, duration and cost; every row fits 80 columns', async () => {
    const { frame, press, waitFor } = await mount();
    await press('6');
    await waitFor('History: 11 rows from the journal');
    const f = frame();
    expect(f).toContain('[6 History]');
    const list = f.split('\n').filter((l) => /^[› ] \d\d:\d\d:\d\d /.test(l));
    expect(list).toHaveLength(11);
    expect(list[0]).toMatch(/ch02\/research +run +#1 writer SUCCESS 10 m 00 s \$0\.75 1\.5k tok/);
    expect(list[10]).toMatch(/session +session started \(pid 11\)/);
    expect(f).toContain('log .checkroom/runs/ch02-research-1.log');
    for (const l of f.split('\n')) expect(l.length).toBeLessThanOrEqual(80);
  });

  it('/ filters it', async () => {
    const { frame, press, waitFor } = await mount();
    await press('6');
    await waitFor('History: 11 rows');
    await press('/', 'P', 'E', 'R', 'M', '\r');
    const list = frame()
      .split('\n')
      .filter((l) => /^[› ] \d\d:\d\d:\d\d /.test(l));
    expect(list).toHaveLength(2);
    expect(list.every((l) => l.includes('ch02/research'))).toBe(true);
  });

  it('enter on a row shows every view as it was then, marked as the past; actions are off; esc returns to now', async () => {
    const { frame, press, waitFor, store } = await mount();
    await press('1');
    const now = rowOf(frame(), 'ch02');
    expect(store.getState().ws.cells.find((c) => c.unit === 'ch02' && c.step === 'research')!.status).toBe('done');
    await press('6');
    await waitFor('History: 11 rows');
    // The 8th row, newest first: ch01 draft's second attempt, which ended 150 minutes back.
    await press('j', 'j', 'j', 'j', 'j', 'j', 'j', '\r');
    await waitFor('the past: ');
    expect(header(frame())).toMatch(/the past: \d\d:\d\d:\d\d \(from the journal; 97 cells not journalled, as now\)/);
    await press('1');
    const then = rowOf(frame(), 'ch02');
    expect(then).not.toBe(now);
    // 150 minutes back ch02's research had not been launched yet: not started, where the disk now says done.
    expect(then).toMatch(/ch02 B1\s+--\s/);
    expect(rowOf(frame(), 'ch01')).toMatch(/ch01 B1\s+\[?✅\]?\s+✅/);
    // What writes acts on now: refused, and said.
    await press('2', 'b');
    expect(frame()).toContain('"back up" is off while looking at the past (');
    await press('\u001b');
    expect(header(frame())).not.toContain('the past');
    await press('1');
    expect(rowOf(frame(), 'ch02')).toBe(now);
  });

  it(':at 1h goes an hour back from the command line', async () => {
    const { frame, press, waitFor } = await mount();
    await press('6');
    await waitFor('History: 11 rows');
    await press(':', 'a', 't', ' ', '1', 'h', '\r');
    await waitFor('the past: ');
    await press('1');
    expect(rowOf(frame(), 'ch02')).toMatch(/ch02 B1\s+--\s/);
  });

  it('P on a cell opens its post-mortem: every attempt with class, duration, cost, log, and what was done to it', async () => {
    const { frame, press, waitFor } = await mount();
    await press('6');
    await waitFor('History: 11 rows');
    await press('1', 'j', 'P');
    await waitFor('Post-mortem ch02/research');
    const f = frame();
    expect(f).toContain('Post-mortem ch02/research: 2 attempts · 19 m 00 s in all · $0.75');
    expect(f).toMatch(/attempt #1 writer PERMISSION 9 m 00 s exit 1/);
    expect(f).toContain('escalated as PERMISSION: PERMISSION: the key was refused');
    expect(f).toContain('operator: reset the cell');
    expect(f).toContain('log: .checkroom/runs/ch02-research-1.log');
    await press('\u001b');
    expect(frame()).toContain('History: 11 rows');
  });

  it('NO_COLOR and --ascii: no colour, no escape but the selection, ASCII punctuation', async () => {
    // --ascii as the entry sets it: the terminal's charset (src/text/charset.ts) and the store's flag.
    setOutputCharset('symbols');
    const { raw, frame, press, waitFor } = await mount({ theme: NO_COLOR_THEME, ascii: true });
    await press('6');
    await waitFor('History: 11 rows');
    await press('P');
    await waitFor('Post-mortem');
    await press('\u001b');
    expect(withoutReverse(raw())).not.toContain('\u001b');
    expect(frame()).not.toMatch(/[·›…]|\p{Extended_Pictographic}/u);
    expect(frame()).toContain('History: 11 rows');
  });

  it('on start, the status line says what changed while you were away', async () => {
    const { frame, waitFor } = await mount({ digest: true });
    await waitFor('while you were away');
    expect(frame()).toMatch(/while you were away: since .*: 1 launch, 1 done/);
  });
});
