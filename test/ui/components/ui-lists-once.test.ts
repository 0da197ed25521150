import { describe, expect, it } from 'vitest';
import { copyDemo } from '../../helpers/workspace.js';
import { loadWorkspace } from '../../../src/workspace.js';
import { initialAgents } from '../../../src/ui/agents/types.js';
import { matrixOf } from '../../../src/ui/store/select.js';
import { tabCount, tabCounts, VIEWS, type ListInput } from '../../../src/ui/views/views.js';

// Issue 10 goal: control room RSS at 50k files ≤ 150 MB. The store and the views asked for
// the same state's matrix several times per change, and the tab bar counted the Partials and
// Plan lists on every key: at 50k cells each was megabytes of short-lived maps, arrays and
// keys, promoted into the old generation when a scavenge caught them half-built. A state is
// never changed once published, so what is computed from it is computed once.

const input = async (): Promise<ListInput> => ({ ws: await loadWorkspace(copyDemo()), filter: '', skipped: [], redoQueue: [], agents: initialAgents() });

describe('lists computed once per state', () => {
  it('the matrix of a state and filter is built once; a new state or filter builds another', async () => {
    const s = await input();
    const m = matrixOf(s.ws, '');
    expect(m.rows.length).toBeGreaterThan(0);
    expect(matrixOf(s.ws, '')).toBe(m);
    const filtered = matrixOf(s.ws, 'ch03');
    expect(filtered).not.toBe(m);
    expect(filtered.rows.map((r) => r.unit)).toEqual(['ch03']);
    const next = { ...s.ws, cells: s.ws.cells.slice() };
    expect(matrixOf(next, '')).not.toBe(m);
    expect(matrixOf(next, '')).toEqual(m);
  });

  it('the tab counts are the lists’ lengths, counted again only when a list input changes', async () => {
    const s = await input();
    const counts = tabCounts(s);
    for (const v of VIEWS) expect(counts[v.id]).toBe(tabCount(v, s));
    expect(counts.partials).toBeGreaterThan(0);
    // A key that moves a cursor or types a filter changes none of them.
    expect(tabCounts({ ...s, filter: 'ch0' })).toBe(counts);
    const skipped = [s.ws.partials[0].path];
    const after = tabCounts({ ...s, skipped });
    expect(after).not.toBe(counts);
    expect(after.partials).toBe(counts.partials! - 1);
  });
});
