import { afterEach, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import stringWidth from 'string-width';
import { createLiveWorkspace } from '../../../src/live/live-workspace.js';
import { createAppStore } from '../../../src/ui/store/store.js';
import { COLOR_THEME } from '../../../src/text/theme.js';
import type { WorkspaceState } from '../../../src/types.js';
import { renderRoom, tick, unmountAll } from '../../helpers/ink.js';
import { pathOf, prose } from '../../helpers/workspace.js';
import { whereBook, type WhereBookOptions } from '../../helpers/where.js';

// Issue 18 item 3 in the header: the batch where the work stopped, and a short phrase when
// checkpoint.md says another, within 80 columns; live, a marker lost in Batch 1 while Batch 2
// is worked on does not move the header back to Batch 1.

async function mount(o: WhereBookOptions, watch = false) {
  const root = whereBook(o);
  const live = await createLiveWorkspace(root, { watch });
  const store = createAppStore({ live, now: () => new Date(2026, 10, 30, 5, 12, 0) });
  const { frame } = await renderRoom(store, live, COLOR_THEME, 24, 80);
  return { root, live, frame, ws: () => store.getState().ws as WorkspaceState };
}

const headerLine = (frame: string): string => frame.split('\n')[0];

afterEach(async () => {
  await unmountAll();
});

describe('the header says where the work stopped', () => {
  it('names Batch 2, not Batch 1 and its two lost markers', async () => {
    const { frame } = await mount({});
    const h = headerLine(frame());
    expect(h).toContain('Phase 3 Chapter writing · Batch 2');
    expect(h).not.toContain('checkpoint says');
    expect(stringWidth(h)).toBeLessThanOrEqual(80);
  });

  it('says when the checkpoint disagrees, in one short phrase within 80 columns', async () => {
    const { frame } = await mount({ batch: 1 });
    const h = headerLine(frame());
    expect(h).toContain('Phase 3 Chapter writing · Batch 2 · checkpoint says Batch 1');
    expect(stringWidth(h)).toBeLessThanOrEqual(80);
  });

  it('keeps the checkpoint\'s word at 60 columns: the phase name gives way', async () => {
    const root = whereBook({ batch: 1 });
    const live = await createLiveWorkspace(root, { watch: false });
    const store = createAppStore({ live });
    const { frame } = await renderRoom(store, live, COLOR_THEME, 20, 60);
    const h = headerLine(frame());
    expect(h).toContain('· Phase 3 · Batch 2 · checkpoint says Batch 1');
    expect(stringWidth(h)).toBeLessThanOrEqual(60);
  });

  it('keeps Batch 2 live when a marker is lost in Batch 1 while Batch 2 is worked on', async () => {
    const { root, live, frame, ws } = await mount({ intact: true }, true);
    expect(headerLine(frame())).toContain('· Batch 2');
    expect(ws().regressions).toEqual([]);
    // ch04's merged review loses its marker (an editor saved over it without the last line).
    writeFileSync(join(root, pathOf('ch04', 'review')), `# ch04 review\n\n${prose(400)}\n`);
    await live.settled();
    for (let i = 0; i < 200 && !(ws().regressions ?? []).length; i++) await tick(10);
    expect((ws().regressions ?? []).map((r) => `${r.unit} ${r.step}`)).toEqual(['ch04 review']);
    expect(ws().stoppedAt).toMatchObject({ batch: 2, from: 'checkpoint' });
    await tick(50);
    expect(headerLine(frame())).toContain('· Batch 2');
    expect(headerLine(frame())).not.toContain('Batch 1');
  });
});
