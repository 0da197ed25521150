import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { listLength } from '../../../src/ui/views/nav.js';
import { matrixOf, partialItems } from '../../../src/ui/store/select.js';
import { COMMAND_NAMES } from '../../../src/ui/keys/command-line.js';
import { closeStores, openStore } from '../../helpers/store.js';
import { copyDemo } from '../../helpers/workspace.js';

// Navigation, the filter, the `:` command line, the help overlay and the cell detail, driven
// through `feed` on a real copy of the demo (issue 9 item 3): no React, no sleep per key.

afterEach(closeStores);

describe('store: views and cursors', () => {
  it('switches views by number, tab and shift-tab, and by :name', async () => {
    const r = await openStore(copyDemo());
    expect(r.s().view).toBe('progress');
    await r.press('3');
    expect(r.s().view).toBe('plan');
    await r.press('tab', 'tab');
    expect(r.s().view).toBe('health');
    await r.press('tab');
    expect(r.s().view).toBe('history');
    await r.press('tab');
    expect(r.s().view).toBe('progress');
    await r.press('shift-tab');
    expect(r.s().view).toBe('history');
    await r.press(':', 'partials', 'enter');
    expect(r.s().view).toBe('partials');
    expect(r.s().prompt).toBeNull();
  });

  it('moves the cursor within the list, in a burst as well as key by key', async () => {
    const r = await openStore(copyDemo());
    await r.press('2');
    const n = listLength(r.s(), 'partials');
    expect(n).toBeGreaterThan(2);
    r.burst('jjj');
    expect(r.s().cursors.partials).toBe(Math.min(3, n - 1));
    await r.press('G');
    expect(r.s().cursors.partials).toBe(n - 1);
    await r.press('j');
    expect(r.s().cursors.partials).toBe(n - 1);
    await r.press('g', 'k');
    expect(r.s().cursors.partials).toBe(0);
    // The cursor holds its item: it is what the partial actions act on.
    await r.press('j');
    const second = partialItems(r.s().ws, '', [])[1];
    expect(r.s().picked.partials).toContain(second.file.path);
  });

  it('moves across the matrix with h/l on the Progress view only', async () => {
    const r = await openStore(copyDemo());
    await r.press('l', 'l');
    expect(r.s().cell.col).toBe(2);
    await r.press('h');
    expect(r.s().cell.col).toBe(1);
    await r.press('2', 'l');
    await r.press('1');
    expect(r.s().cell.col).toBe(1);
  });
});

describe('store: the filter', () => {
  it('applies as it is typed, stays on enter, and esc clears it', async () => {
    const r = await openStore(copyDemo());
    const all = matrixOf(r.s().ws, '').rows.length;
    await r.press('/', 'ch0');
    expect(r.s().prompt).toEqual({ kind: 'filter', text: 'ch0' });
    await r.press('3');
    expect(r.s().filter).toBe('ch03');
    expect(matrixOf(r.s().ws, r.s().filter).rows.map((x) => x.unit)).toEqual(['ch03']);
    expect(all).toBeGreaterThan(1);
    await r.press('backspace', '2', 'enter');
    expect(r.s().prompt).toBeNull();
    expect(r.s().filter).toBe('ch02');
    expect(r.s().message).toEqual({ text: 'filter: ch02', tone: 'info' });
    await r.press('esc');
    expect(r.s().filter).toBe('');
    expect(r.s().message).toEqual({ text: 'filter cleared', tone: 'info' });
  });

  it('esc in the prompt drops the filter being typed', async () => {
    const r = await openStore(copyDemo());
    await r.press('/', 'zz', 'esc');
    expect(r.s().prompt).toBeNull();
    expect(r.s().filter).toBe('');
  });

  it('clamps the cursor when the filter shortens the list', async () => {
    const r = await openStore(copyDemo());
    await r.press('2', 'G');
    expect(r.s().cursors.partials).toBeGreaterThan(0);
    const first = partialItems(r.s().ws, '', [])[0].file.path;
    await r.press('/', first, 'enter');
    expect(listLength(r.s(), 'partials')).toBe(1);
    expect(r.s().cursors.partials).toBe(0);
  });
});

describe('store: the command line and the help overlay', () => {
  it('says what went wrong with an unknown command, listing the names from the one table', async () => {
    const r = await openStore(copyDemo());
    await r.press(':', 'nope', 'enter');
    expect(r.s().message?.tone).toBe('warn');
    expect(r.s().message?.text).toContain('unknown command ":nope"');
    for (const name of COMMAND_NAMES.filter((x) => x !== 'quit')) expect(r.s().message?.text).toContain(`:${name}`);
    await r.press(':', 'enter');
    expect(r.s().message?.text).toBe('empty command; try :help');
  });

  it('? opens help, movement scrolls under it, another key closes it and still acts', async () => {
    const r = await openStore(copyDemo());
    await r.press('?');
    expect(r.s().help.open).toBe(true);
    await r.press('esc');
    expect(r.s().help.open).toBe(false);
    await r.press('?', '2');
    expect(r.s().help.open).toBe(false);
    expect(r.s().view).toBe('partials');
  });

  it('ctrl-c quits from anywhere, and nothing is read after quit', async () => {
    const r = await openStore(copyDemo());
    await r.press('/', 'ch', 'ctrl-c');
    expect(r.s().quit).toBe(true);
    await r.press('esc', '3');
    expect(r.s().view).toBe('progress');
  });
});

describe('store: the cell detail', () => {
  it('enter reads the tail of the cell under the cursor; moving re-reads the new cell', async () => {
    const r = await openStore(copyDemo());
    const rows = matrixOf(r.s().ws, '').rows;
    const first = rows[0].cells.findIndex((c) => c.exists);
    expect(first).toBeGreaterThanOrEqual(0);
    await r.press(...Array(first).fill('l'), 'enter');
    const cell = rows[0].cells[first];
    const d = r.s().detail!;
    expect(d).toMatchObject({ unit: cell.unit, step: cell.step, loading: false, note: null });
    const last = readFileSync(join(r.root, cell.path), 'utf8').trimEnd().split('\n').at(-1);
    expect(d.tail!.lines.at(-1)).toBe(last);
    // A cell with no file says so instead of a tail.
    const missing = rows.flatMap((row, i) => row.cells.map((c, j) => ({ c, i, j }))).find((x) => !x.c.exists)!;
    await r.press('g', ...Array(missing.i).fill('j'));
    const col = r.s().cell.col;
    await r.press(...Array(Math.max(0, missing.j - col)).fill('l'), ...Array(Math.max(0, col - missing.j)).fill('h'));
    expect(r.s().detail).toMatchObject({ unit: missing.c.unit, step: missing.c.step, tail: null, note: 'no file on disk' });
    await r.press('esc');
    expect(r.s().detail).toBeNull();
  });
});
