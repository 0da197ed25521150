import { afterEach, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLiveWorkspace } from '../../../src/live/live-workspace.js';
import { createAppStore } from '../../../src/ui/store/store.js';
import { NO_COLOR_THEME } from '../../../src/text/theme.js';
import { renderRoom, tick, unmountAll } from '../../helpers/ink.js';
import { copyDemo } from '../../helpers/workspace.js';

// A checkpoint.md that cannot be parsed has no rows, so no row disagrees with the disk: the
// Sources view must not call that agreement.

afterEach(async () => {
  await unmountAll();
});

describe('the Sources view on a checkpoint.md it cannot parse', () => {
  it('says which files on disk it does not list instead of "agrees with the disk"', async () => {
    const dir = copyDemo();
    writeFileSync(join(dir, 'checkpoint.md'), Buffer.from([0x00, 0x01, 0xff, 0xfe, 0x0a, 0x7c, 0x20, 0x00]));
    const live = await createLiveWorkspace(dir, { watch: false });
    const store = createAppStore({ live, ascii: true });
    const { frame, press } = await renderRoom(store, live, NO_COLOR_THEME, 24, 100);
    await tick(50);
    await press('\u001b', '4');
    for (let i = 0; i < 100 && !frame().includes('1 checkpoint.md'); i++) await tick(20);
    const top = frame().split('\n').slice(0, 14).join('\n');
    expect(top).toMatch(/\d+ files on disk not in it/);
    expect(top).not.toMatch(/1 checkpoint\.md[^\n]*\n[^\n]*\n[^\n]*agrees with the disk/);
  });
});
