import { afterEach, describe, expect, it } from 'vitest';
import { createLiveWorkspace } from '../../../src/live/live-workspace.js';
import { createAppStore } from '../../../src/ui/store/store.js';
import { NO_COLOR_THEME } from '../../../src/text/theme.js';
import { renderRoom, tick, unmountAll } from '../../helpers/ink.js';
import { PHASE_1_2, doneFile, summaries, tempDir, writeFiles } from '../../helpers/workspace.js';

// A file checkroom cannot read (here a directory under the research file's name) on screen:
// the cell waits for a human, its detail says what is unknown instead of inventing a size or
// a missing marker, it is not among the half-products, and the plan says what to fix.

afterEach(async () => {
  await unmountAll();
});

describe('a cell whose file cannot be read', () => {
  it('is shown as unknown in the detail, absent from Partials, and explained in the Plan', async () => {
    const dir = tempDir('checkroom-unreadable-ui-');
    writeFiles(dir, { ...PHASE_1_2, 'meta/chapter-summaries.md': summaries([]), ...Object.fromEntries([doneFile('ch02', 'research')]), 'research/ch01-research.md/inner.txt': 'x' });
    const live = await createLiveWorkspace(dir, { watch: false });
    const store = createAppStore({ live, ascii: true });
    const { frame, press } = await renderRoom(store, live, NO_COLOR_THEME, 24, 100);
    await tick(50);
    await press('\r');
    for (let i = 0; i < 100 && !frame().includes('(esc back'); i++) await tick(20);
    const detail = frame();
    expect(detail).toContain('unknown: checkroom cannot read it');
    expect(detail).toContain('unknown (cannot read the file): <!-- RESEARCH_COMPLETE -->');
    expect(detail).toContain('disk: cannot be read');
    expect(detail).toContain('cannot read it: not a regular file');
    expect(detail).not.toMatch(/0 bytes/);
    await press('\u001b', '2');
    expect(frame()).not.toContain('research/ch01-research.md');
    await press('3');
    expect(frame()).toMatch(/P1 ch01 research\s+needs you\s+ch01 research cannot be read \(not a regular file\)/);
  });
});
