import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLiveWorkspace } from '../../../src/live/live-workspace.js';
import { createAppStore } from '../../../src/ui/store/store.js';
import { NO_COLOR_THEME } from '../../../src/text/theme.js';
import { renderRoom, tick, unmountAll } from '../../helpers/ink.js';
import { PHASE_1_2, prose, summaries, tempDir, writeFiles } from '../../helpers/workspace.js';

// Issue 8 item 7 on screen, at 80x24 in ASCII: a research file that is a symlink out of the
// workspace is not read or quoted; its cell detail says why and how to allow it.

afterEach(async () => {
  await unmountAll();
});

describe('a cell whose file is a symlink out of the workspace', () => {
  it('says why in the detail and never shows the outside text', async () => {
    const out = tempDir('checkroom-outside-');
    writeFileSync(join(out, 'secret.md'), `${prose(300)}\n\nSECRET-OUTSIDE-TEXT\n`);
    const dir = tempDir('checkroom-link-ui-');
    writeFiles(dir, { ...PHASE_1_2, 'meta/chapter-summaries.md': summaries([]) });
    mkdirSync(join(dir, 'research'));
    symlinkSync(join(out, 'secret.md'), join(dir, 'research/ch01-research.md'));
    const live = await createLiveWorkspace(dir, { watch: false });
    const store = createAppStore({ live, ascii: true });
    const { frame, press } = await renderRoom(store, live, NO_COLOR_THEME, 24, 80);
    await tick(50);
    await press('\r');
    for (let i = 0; i < 100 && !frame().includes('(esc back'); i++) await tick(20);
    for (let i = 0; i < 100 && frame().includes('reading the tail'); i++) await tick(20);
    const detail = frame();
    expect(detail).toContain('unknown: checkroom cannot read it');
    expect(detail).toContain('cannot read it: a symlink out of the');
    expect(detail).not.toContain('SECRET-OUTSIDE-TEXT');
  });
});
