import { describe, expect, it } from 'vitest';
import { copyDemo } from '../../helpers/workspace.js';
import { loadWorkspace } from '../../../src/workspace.js';
import { initialAgents } from '../../../src/ui/agents/types.js';
import { clampCursors, listKeys, listLength, sameCursors, type NavState } from '../../../src/ui/views/nav.js';
import { noPicks } from '../../../src/ui/store/picked.js';
import { commandById, type CommandId } from '../../../src/ui/keys/keymap.js';
import { initialCursors, tabCount, VIEW_IDS, VIEWS } from '../../../src/ui/views/views.js';

// Issue 9 item 2: the view registry is the one place a view is named. The cursors of the
// initial UI, the picks, each list's keys and length, the clamping after a list changes,
// the tab counts and the number-key commands all derive from its rows, so a new view is one row.

const stateOn = async (): Promise<NavState & { picked: ReturnType<typeof noPicks> }> => ({
  view: 'progress',
  cursors: initialCursors(),
  cell: { row: 0, col: 0 },
  filter: '',
  skipped: [],
  redoQueue: [],
  pageSize: 10,
  help: { open: false, offset: 0 },
  agents: initialAgents(),
  ws: await loadWorkspace(copyDemo()),
  picked: noPicks(),
});

describe('the view registry', () => {
  it('has unique ids and number keys', () => {
    expect(new Set(VIEWS.map((v) => v.id)).size).toBe(VIEWS.length);
    expect(new Set(VIEWS.map((v) => v.key)).size).toBe(VIEWS.length);
    expect(VIEW_IDS).toEqual(VIEWS.map((v) => v.id));
  });

  it('derives the initial cursors and the picks for every registered view', () => {
    expect(Object.keys(initialCursors())).toEqual(VIEW_IDS);
    expect(Object.values(initialCursors()).every((n) => n === 0)).toBe(true);
    expect(Object.keys(noPicks())).toEqual(VIEW_IDS);
  });

  it("derives each view's list, its length and the clamping from the row's list", async () => {
    const s = await stateOn();
    for (const v of VIEWS) {
      expect(listKeys(s, v.id)).toEqual(v.list(s));
      expect(listLength(s, v.id)).toBe(v.list(s).length);
    }
    // The demo has rows in the progress, plan and sources lists: the lists are real.
    expect(listLength(s, 'progress')).toBeGreaterThan(0);
    expect(listLength(s, 'plan')).toBeGreaterThan(0);
    const clamped = clampCursors(s);
    expect(Object.keys(clamped.cursors!)).toEqual(VIEW_IDS);
    expect(Object.keys(clamped.picked!)).toEqual(VIEW_IDS);
    // Every view with items has its first item picked after a clamp.
    for (const v of VIEWS) expect(clamped.picked![v.id]).toBe(v.list(s)[0] ?? null);
    expect(sameCursors({ ...s, ...clamped } as typeof s, clamped)).toBe(true);
  });

  it('gives every view its number-key command and its tab count', async () => {
    const s = await stateOn();
    for (const v of VIEWS) {
      expect(commandById(`view.${v.id}` as CommandId)?.keys).toEqual([{ ch: v.key }]);
      expect(tabCount(v, s)).toBe(v.counted ? v.list({ ...s, filter: '', recovery: undefined }).length : null);
    }
  });
});
