import { describe, expect, it } from 'vitest';
import { parseEntry } from '../../../src/many/entries.js';
import { hostOf, type OverviewRow } from '../../../src/many/rows.js';
import { cursorOf, overviewKey, type OverviewUi } from '../../../src/ui/overview/state.js';
import { etaWord, titleLine } from '../../../src/ui/overview/lines.js';
import { tokens } from '../../helpers/store.js';

// docs/many.md, Keys: the overview's reducer on plain values, and the words its lines are made of.

const row = (label: string): OverviewRow => {
  const entry = parseEntry(label);
  return { entry, host: hostOf(entry), state: { kind: 'loading' } };
};
const feed = (ui: OverviewUi, rows: OverviewRow[], ...keys: string[]) => {
  let effect = null as ReturnType<typeof overviewKey>['effect'];
  for (const t of tokens(...keys)) ({ ui, effect } = overviewKey(ui, rows, t));
  return { ui, effect };
};

describe('overviewKey', () => {
  const rows = [row('/a'), row('/b'), row('ssh://h/c')];

  it('the cursor stays on its workspace when the rows reorder by urgency', () => {
    const { ui } = feed({ picked: null, detail: null }, rows, 'j');
    expect(cursorOf(ui, rows)).toBe(1);
    const reordered = [rows[1]!, rows[2]!, rows[0]!];
    expect(cursorOf(ui, reordered)).toBe(0);
    expect(feed(ui, reordered, 'enter').effect).toEqual({ kind: 'open', row: rows[1] });
  });

  it('moves stop at the ends; Enter on a remote opens its detail, Esc closes it, other keys wait', () => {
    let { ui } = feed({ picked: null, detail: null }, rows, 'k', 'down', 'j', 'j', 'j');
    expect(cursorOf(ui, rows)).toBe(2);
    ({ ui } = feed(ui, rows, 'enter'));
    expect(ui.detail).toBe('h:/c');
    expect(feed(ui, rows, 'k', 'enter').ui).toEqual(ui);
    expect(feed(ui, rows, 'esc').ui.detail).toBeNull();
  });

  it('r reads again, q and ctrl-c quit, from the detail too', () => {
    expect(feed({ picked: null, detail: null }, rows, 'r').effect).toEqual({ kind: 'refresh' });
    expect(feed({ picked: null, detail: 'h:/c' }, rows, 'q').effect).toEqual({ kind: 'quit' });
    expect(feed({ picked: null, detail: null }, rows, 'ctrl-c').effect).toEqual({ kind: 'quit' });
  });
});

describe('the overview\'s words', () => {
  it('an ETA today is a clock time, another day a date; none is -', () => {
    const now = new Date(2026, 11, 2, 9, 0).getTime();
    expect(etaWord(new Date(2026, 11, 2, 14, 5).toISOString(), now)).toBe('14:05');
    expect(etaWord(new Date(2026, 11, 4, 1, 0).toISOString(), now)).toBe('12-04');
    expect(etaWord(null, now)).toBe('-');
    expect(etaWord('soon', now)).toBe('-');
  });

  it('the title counts workspaces, hosts and what needs the operator', () => {
    expect(titleLine([row('/a'), row('ssh://h/c'), row('ssh://h/d')])).toBe('checkroom overview · 3 workspaces on 2 hosts');
  });
});
