import { afterEach, describe, expect, it } from 'vitest';
import { stripVTControlCharacters } from 'node:util';
import { render } from 'ink-testing-library';
import { Overview } from '../../../components/Overview.js';
import { ThemeContext } from '../../../hooks/use-theme.js';
import { parseEntry } from '../../../src/many/entries.js';
import type { Overview as OverviewModel } from '../../../src/many/overview.js';
import { hostOf, sortRows, type OverviewRow, type RowState } from '../../../src/many/rows.js';
import type { WorkspaceSummary } from '../../../src/many/summary.js';
import { COLOR_THEME, NO_COLOR_THEME } from '../../../src/text/theme.js';
import { tick, withoutReverse } from '../../helpers/ink.js';

// The overview at 80×24 and 120×40 (docs/many.md): rows most urgent first, Enter on a local
// workspace hands it to the entry, on a remote one opens its read-only detail, Esc closes it.

const sum = (name: string, over: Partial<WorkspaceSummary> = {}): WorkspaceSummary => ({ name, pipeline: 'book', phase: 3, batch: 2, total: 100, done: 29, partial: 4, failed: 1, needsYou: 0, running: 2, spendUsd: 3.25, eta: null, alarms: ['2 regressions'], urgency: 'running', ...over });
const row = (label: string, state: RowState): OverviewRow => {
  const entry = parseEntry(label);
  return { entry, host: hostOf(entry), state };
};
const ROWS = sortRows([
  row('/books/one', { kind: 'ok', summary: sum('One', { urgency: 'done', done: 100, running: 0 }), at: 0 }),
  row('/books/two', { kind: 'ok', summary: sum('Two \u001b[2J', { urgency: 'needs-you', needsYou: 1 }), at: 0 }),
  row('ssh://ana@h2:2200/srv/three', { kind: 'ok', summary: sum('Three'), at: 0 }),
  row('ssh://h3/srv/four', { kind: 'unreachable', reason: 'connection refused', since: 0, last: null }),
]);
const model = (rows: OverviewRow[]): OverviewModel => ({ rows: () => rows, at: () => 0, subscribe: () => () => undefined, refresh: () => undefined, pause: () => undefined, resume: () => undefined, close: () => undefined });

const mounted: (() => void)[] = [];
afterEach(() => mounted.splice(0).forEach((u) => u()));

async function show(o: { cols?: number; rows?: number; ascii?: boolean; theme?: typeof COLOR_THEME } = {}) {
  const opened: string[] = [];
  let quit = false;
  const r = render(
    <ThemeContext.Provider value={o.theme ?? COLOR_THEME}>
      <Overview model={model(ROWS)} ascii={!!o.ascii} picked={null} onOpen={(x) => opened.push(x.entry.label)} onQuit={() => (quit = true)} />
    </ThemeContext.Provider>,
  );
  Object.defineProperty(r.stdout, 'rows', { value: o.rows ?? 24, configurable: true });
  Object.defineProperty(r.stdout, 'columns', { value: o.cols ?? 80, configurable: true });
  r.stdout.emit('resize');
  await tick();
  mounted.push(r.unmount);
  const press = async (...keys: string[]) => {
    for (const k of keys) {
      r.stdin.write(k);
      await tick(k === '\u001b' ? 80 : 25);
    }
  };
  const frame = () => stripVTControlCharacters(r.lastFrame() ?? '');
  // A bounded wait for a frame (a loaded machine renders late); never a time assertion.
  const frameWith = async (text: string) => {
    for (let i = 0; i < 250 && !frame().includes(text); i++) await tick(20);
    return frame();
  };
  const until = async (ok: () => boolean) => {
    for (let i = 0; i < 250 && !ok(); i++) await tick(20);
  };
  await frameWith('checkroom overview');
  return { frameWith, until, write: (k: string) => r.stdin.write(k), frame: () => stripVTControlCharacters(r.lastFrame() ?? ''), raw: () => r.lastFrame() ?? '', press, opened, quit: () => quit };
}

describe('Overview', () => {
  it('80×24: every row fits, most urgent first, the unreachable one says why; workspace text escaped', async () => {
    const v = await show();
    const lines = v.frame().split('\n');
    expect(lines.length).toBeLessThanOrEqual(24);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(80);
    expect(lines[0]).toContain('4 workspaces on 3 hosts · 1 needs you · 1 unreachable');
    const order = lines.slice(2, 6).map((l) => l.slice(0, 9).trim());
    expect(order).toEqual(['NEEDS YOU', 'UNREACH', 'running', 'done']);
    expect(lines[3]).toMatch(/UNREACH +h3:\/srv\/four +h3 +unreachable: connection refused/);
    expect(lines[4]).toMatch(/Three +h2 +P3 B2 +29\/100 +4 +1 +0 +2 +\$3\.25/);
    expect(v.raw()).not.toContain('\u001b[2J');
    expect(v.frame()).toContain('Two \\e[2J');
    // The selected row's alarms are spelled out under the list at 80 columns.
    expect(v.frame()).toContain('/books/two: 2 regressions · enter: open its control room');
  });

  it('120×40: the alarms get a column of their own', async () => {
    const v = await show({ cols: 120, rows: 40 });
    const lines = v.frame().split('\n');
    expect(lines[1]).toMatch(/ETA +alarms/);
    expect(lines.find((l) => l.includes('Three'))).toMatch(/2 regressions$/);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(120);
  });

  it('NO_COLOR and --ascii: no colour codes, ASCII keys', async () => {
    const v = await show({ theme: NO_COLOR_THEME, ascii: true });
    expect(withoutReverse(v.raw())).not.toContain('\u001b');
    expect(v.frame()).toContain('up/down move · enter open');
  });

  it('Enter on a local row hands it to the entry; on a remote one opens its detail; Esc closes it; q quits', async () => {
    const v = await show();
    await v.press('j', 'j', '\r');
    expect(await v.frameWith('h2 · read-only status, read over ssh')).toContain('ssh -t ana@h2 -p 2200 checkroom /srv/three');
    expect(v.opened).toEqual([]);
    await v.press('\u001b');
    expect(await v.frameWith('checkroom overview')).toContain('checkroom overview');
    await v.press('k', 'k', '\r');
    await v.until(() => v.opened.length > 0);
    expect(v.opened).toEqual(['/books/two']);
  });

  it('keys written one by one before a render (tmux send-keys) each read the last state', async () => {
    const v = await show();
    v.write('j');
    v.write('j');
    v.write('j');
    v.write('\r');
    await v.until(() => v.opened.length > 0);
    // Fourth row (done, local): three moves from the first, not one.
    expect(v.opened).toEqual(['/books/one']);
  });

  it('q quits', async () => {
    const v = await show();
    await v.press('q');
    await v.until(() => v.quit());
    expect(v.quit()).toBe(true);
  });
});
