import { afterEach, describe, expect, it } from 'vitest';
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createLiveWorkspace, type LiveWorkspace } from '../../../src/live/live-workspace.js';
import type { WorkspaceState } from '../../../src/types.js';
import { matrixOf, partialItems, planItems } from '../../../src/ui/store/select.js';
import { planOf } from '../../../src/operator/plan.js';
import { buildMatrix } from '../../../src/ui/views/matrix.js';
import { initialAgents } from '../../../src/ui/agents/types.js';
import { listKeys } from '../../../src/ui/views/nav.js';
import { initialCursors } from '../../../src/ui/views/views.js';
import { noPicks } from '../../../src/ui/store/picked.js';
import { PHASE_1_2, doneFile, pathOf, prose, summaries, tempDir, writeFiles } from '../../helpers/workspace.js';

// Issue 18 item 6: at 50k files a marker took 162 ms (p50) to reach the screen while the
// engine settled in ~9 ms; the rest was the views and the store re-deriving every list over
// every cell on each change. A marker changes one unit: the matrix, the lists and their keys
// after it are the ones before with that unit's items replaced, and everything else is the
// same objects (no rebuild, no garbage), and still equal to a build from scratch.

let live: LiveWorkspace | null = null;
afterEach(async () => {
  await live?.close();
  live = null;
});

function book(): string {
  const root = tempDir();
  writeFiles(root, {
    ...PHASE_1_2,
    'meta/chapter-summaries.md': summaries([]),
    ...Object.fromEntries([doneFile('ch01', 'research'), doneFile('ch02', 'research'), doneFile('ch03', 'research')]),
    [pathOf('ch01', 'draft')]: `# d\n\n${prose(400)}\n`,
    [pathOf('ch02', 'draft')]: `# d\n\n${prose(400)}\n`,
    [pathOf('ch03', 'draft')]: `# d\n\n${prose(400)}\n`,
  });
  for (const d of ['reviews', 'reader-feedback', 'chapters', 'publish']) mkdirSync(join(root, d), { recursive: true });
  return root;
}

/** The live state after a marker lands on ch02's draft. */
async function markerOnCh02(): Promise<{ before: WorkspaceState; after: WorkspaceState }> {
  const root = book();
  live = await createLiveWorkspace(root);
  const before = live.state;
  const next = new Promise<WorkspaceState>((resolve) => live!.subscribe(resolve));
  appendFileSync(join(root, pathOf('ch02', 'draft')), '\n<!-- DRAFT_COMPLETE -->\n');
  return { before, after: await next };
}

const nav = (ws: WorkspaceState) => ({ ws, filter: '', skipped: [], redoQueue: [], agents: initialAgents(), view: 'progress' as const, cursors: initialCursors(), cell: { row: 0, col: 0 }, pageSize: 10, help: { open: false, offset: 0 }, picked: noPicks() });

describe('lists by delta', () => {
  it('a marker replaces its unit’s matrix row only: other rows, the keys and the index are the same objects', async () => {
    const { before, after } = await markerOnCh02();
    const m0 = matrixOf(before, '');
    const m1 = matrixOf(after, '');
    expect(m1).not.toBe(m0);
    expect(m1).toEqual(buildMatrix(after, ''));
    const at = m0.rows.findIndex((r) => r.unit === 'ch02');
    m1.rows.forEach((r, i) => (i === at ? expect(r).not.toBe(m0.rows[i]) : expect(r).toBe(m0.rows[i])));
    expect(m1.keys).toBe(m0.keys);
    expect(m1.rows[at].cells.find((c) => c.step === 'draft')!.status).toBe('done');
    // The Progress view's list is those keys: no key is made again.
    expect(listKeys(nav(after), 'progress')).toBe(m0.keys);
  });

  it('a filter the changed row leaves builds the matrix again, equal to a fresh build', async () => {
    const { before, after } = await markerOnCh02();
    const m0 = matrixOf(before, 'partial');
    expect(m0.rows.map((r) => r.unit)).toContain('ch02');
    const m1 = matrixOf(after, 'partial');
    expect(m1).toEqual(buildMatrix(after, 'partial'));
    expect(m1.rows.map((r) => r.unit)).not.toContain('ch02');
  });

  it('the Partials and Plan lists keep the item objects of unchanged units, and one state asks once', async () => {
    const { before, after } = await markerOnCh02();
    const p0 = partialItems(before, '', []);
    expect(partialItems(before, '', [])).toBe(p0);
    const p1 = partialItems(after, '', []);
    expect(p1.map((i) => i.file.path)).toEqual(after.partials.map((p) => p.path));
    for (const item of p1) expect(item).toBe(p0.find((x) => x.file === item.file));
    const plan0 = planItems(planOf(before.next), '', [], []);
    const plan1 = planItems(planOf(after.next), '', [], []);
    const kept = plan1.filter((i) => i.kind === 'next' && i.step.unit !== 'ch02');
    expect(kept.length).toBeGreaterThan(0);
    for (const item of kept) expect(plan0).toContain(item);
    // The keys of a list are made once per list.
    expect(listKeys(nav(after), 'partials')).toBe(listKeys(nav(after), 'partials'));
    expect(listKeys(nav(after), 'plan')).toBe(listKeys(nav(after), 'plan'));
  });
});
