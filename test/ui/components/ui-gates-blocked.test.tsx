import { afterEach, describe, expect, it } from 'vitest';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { createLiveWorkspace } from '../../../src/live/live-workspace.js';
import { createAppStore } from '../../../src/ui/store/store.js';
import { NO_COLOR_THEME } from '../../../src/text/theme.js';
import { renderRoom, tick, unmountAll } from '../../helpers/ink.js';
import { DEMO, tempDir } from '../../helpers/workspace.js';

// The cell detail of a gate workflow says what a step waits on (the failed gate it depends
// on), and a failed gate shows its failure on the gate line, not as a suspicious verdict.

const ID = '1764400000-k3f9a2';

async function mount() {
  const dir = tempDir('checkroom-gates-blocked-');
  cpSync(join(DEMO, 'gates-workflow'), dir, { recursive: true });
  const live = await createLiveWorkspace(dir, { watch: false });
  const store = createAppStore({ live, ascii: true, now: () => new Date(2026, 10, 30, 5, 12, 0) });
  const { frame, press } = await renderRoom(store, live, NO_COLOR_THEME, 24, 100);
  const steps = store.getState().ws.pipeline.steps.map((s) => s.id);
  const open = async (step: string) => {
    if (frame().includes('(esc back')) await press('\u001b');
    await press(...Array(steps.length).fill('h'), ...Array(steps.indexOf(step)).fill('l'), '\r');
    const t0 = Date.now();
    while (!frame().includes('(esc back')) {
      if (Date.now() - t0 > 5000) throw new Error(`no detail; frame:\n${frame()}`);
      await tick(20);
    }
    return frame();
  };
  return { open };
}

afterEach(async () => {
  await unmountAll();
});

const row = (f: string, key: string) => f.split('\n').find((l) => l.startsWith(key.padEnd(11))) ?? '';

describe('cell detail of a gate workflow: blocked by and verdict', () => {
  it('names the failed gate a step waits on, and nothing for a step whose dependencies passed', async () => {
    const m = await mount();
    let f = await m.open('s06');
    // What blocks it, with its state, in words (issue 18 item 5): not the raw key `<id>/s04`.
    expect(row(f, 'blocked by')).toMatch(new RegExp(`^blocked by\\s+${ID} s04 \\(failed\\): it can start once that is done$`));
    f = await m.open('s05');
    expect(row(f, 'blocked by')).toMatch(/^blocked by\s+nothing$/);
  });

  it('shows a failed gate as failed on the gate line, with no suspicious verdict', async () => {
    const m = await mount();
    const f = await m.open('s04');
    expect(row(f, 'gate')).toMatch(/^gate\s+failed VERIFICATION_FAILED/);
    expect(row(f, 'verdict')).toMatch(/^verdict\s+—$/);
    expect(f).not.toContain('suspicious');
  });
});
