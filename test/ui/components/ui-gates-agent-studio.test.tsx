import { afterEach, describe, expect, it } from 'vitest';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { createLiveWorkspace } from '../../../src/live/live-workspace.js';
import { createAppStore } from '../../../src/ui/store/store.js';
import { NO_COLOR_THEME } from '../../../src/text/theme.js';
import { renderRoom, tick, unmountAll } from '../../helpers/ink.js';
import { REPO, tempDir } from '../../helpers/workspace.js';

// Issue 18 item 4 on screen: the agent-studio fixture's Progress shows exactly the workflow
// file's eight steps (no invented 1.1…1.6), and Partials lists the half-product the summary
// counts (the interrupted step 05, by its reasoning file).

afterEach(async () => {
  await unmountAll();
});

async function mount() {
  const dir = tempDir('checkroom-ui-agent-studio-');
  cpSync(join(REPO, 'test', 'fixtures', 'agent-studio-flow'), dir, { recursive: true });
  const live = await createLiveWorkspace(dir, { watch: false });
  const store = createAppStore({ live, ascii: true, now: () => new Date(2026, 10, 30, 14, 0, 0) });
  return renderRoom(store, live, NO_COLOR_THEME, 24, 100);
}

const until = async (frame: () => string, text: string): Promise<string> => {
  const t0 = Date.now();
  while (!frame().includes(text)) {
    if (Date.now() - t0 > 5000) throw new Error(`no "${text}"; frame:\n${frame()}`);
    await tick(20);
  }
  return frame();
};

describe('agent-studio workflow on screen (issue 18 item 4)', () => {
  it('Progress: the eight steps of the workflow file, 4/8 done; Partials: the one half-product', async () => {
    const { frame, press } = await mount();
    const progress = await until(frame, 's07');
    const header = progress.split('\n').find((l) => /s00/.test(l)) ?? '';
    expect(header.trim().split(/\s+/).slice(1)).toEqual(['s00', 's01', 's02', 's03', 's04', 's05', 's06', 's07']);
    expect(progress).toMatch(/4\/8/);
    expect(progress).not.toMatch(/\b1\.1\b|\b2\.1\b/);
    // The header names the gates' record, the plan, not a checkpoint.md this layout does not have.
    expect(progress).toContain('plan in_execution');
    expect(progress).not.toMatch(/checkpoint/i);
    await press('2');
    const partials = await until(frame, '05-technical-writer.json');
    expect(partials).toMatch(/Partials \(1\)/);
    expect(partials).toContain('1764800000-q7m2x9');
    // No marker to append to a half-done step: keep is not offered; back up and redo are.
    const footer = partials.trimEnd().split('\n').at(-1)!;
    expect(footer).toContain('d redo');
    expect(footer).not.toContain('m keep');
    // Sources: no checkpoint.md to write and no todo table to write back in this layout.
    await press('4');
    const sources = await until(frame, 'gate files (decide)');
    expect(sources).not.toMatch(/checkpoint/i);
    expect(sources).toMatch(/^\s+workflow step\s+claim\s+disk\s+note/m);
    expect(sources.trimEnd().split('\n').at(-1)).not.toContain('write back todos');
  });
});
