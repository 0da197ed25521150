import { afterEach, describe, expect, it } from 'vitest';
import { createLiveWorkspace } from '../../../src/live/live-workspace.js';
import { createAppStore } from '../../../src/ui/store/store.js';
import { NO_COLOR_THEME } from '../../../src/text/theme.js';
import { renderRoom, unmountAll } from '../../helpers/ink.js';
import { PINNED_NOW } from '../../helpers/store.js';
import { copyDemo } from '../../helpers/workspace.js';

// The `:` line on screen (issue 21 item 6): the candidates show as you type, tab fills one in,
// and the footer names tab and ↑/↓, at 80×24 and 120×40.

afterEach(unmountAll);

async function mount(columns: number, rows: number) {
  const live = await createLiveWorkspace(copyDemo(), { watch: false });
  const store = createAppStore({ live, now: PINNED_NOW });
  await store.getState().idle();
  return { store, ...(await renderRoom(store, live, NO_COLOR_THEME, rows, columns)) };
}

describe('the : line on screen', () => {
  for (const [columns, rows] of [[80, 24], [120, 40]] as const)
    it(`lists the candidates as you type and completes with tab at ${columns}×${rows}`, async () => {
      const room = await mount(columns, rows);
      await room.press(':', 're');
      const lines = room.frame().split('\n');
      const line = lines.find((l) => l.startsWith(':re'))!;
      expect(line).toContain(':refresh');
      expect(line).toContain(':recover');
      expect(lines.some((l) => l.includes('tab complete') && l.includes('↑/↓ history'))).toBe(true);
      await room.press('\t');
      expect(room.frame().split('\n').some((l) => /^:re(fresh|cover)_/.test(l))).toBe(true);
      await room.press('\u0015');
      expect(room.frame().split('\n').some((l) => l.startsWith(':_'))).toBe(true);
      await room.press('parti', '\r');
      expect(room.store.getState().view).toBe('partials');
    });
});
