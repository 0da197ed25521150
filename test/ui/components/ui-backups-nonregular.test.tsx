import { afterEach, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import chalk from 'chalk';
import { createLiveWorkspace } from '../../../src/live/live-workspace.js';
import { createAppStore } from '../../../src/ui/store/store.js';
import { NO_COLOR_THEME } from '../../../src/text/theme.js';
import { renderRoom, tick, unmountAll } from '../../helpers/ink.js';
import { copyDemo, tempDir } from '../../helpers/workspace.js';

// The control room's backups panel (`B`) on names that are not line-diffable backups: a
// binary backup gets one note, never raw bytes; a symlink or FIFO named like a backup is not
// listed at all (the CLI names them as ignored). 80×24, NO_COLOR theme, chalk forced on.

const squash = (s: string) => s.replace(/\s+/g, '');

async function mount(dir: string) {
  chalk.level = 3;
  const live = await createLiveWorkspace(dir, { watch: false });
  const store = createAppStore({ live, now: () => new Date(2026, 10, 30, 5, 12, 0) });
  const { raw, press } = await renderRoom(store, live, NO_COLOR_THEME, 24, 80);
  const frame = () => stripVTControlCharacters(raw());
  const waitFor = async (text: string) => {
    // A safety bound so a broken panel fails instead of stalling the run; not a threshold.
    for (let i = 0; !squash(frame()).includes(squash(text)); i++) {
      if (i > 250) throw new Error(`never saw ${text}; frame:\n${frame()}`);
      await tick(20);
    }
  };
  return { frame, press, waitFor, store };
}

afterEach(async () => {
  chalk.level = 0;
  await unmountAll();
});

describe('backups panel: binary backups and impostors', () => {
  it('says "binary, not diffed" for a backup with NUL bytes and lists no symlink or FIFO', async () => {
    const dir = copyDemo();
    const outside = tempDir('checkroom-outside-');
    try {
      const rel = 'drafts/ch05-draft.md';
      writeFileSync(join(outside, 'secret'), 'TOP-SECRET-OUTSIDE\n');
      const bin = randomBytes(100_000);
      bin[0] = 0;
      bin.fill(0x1b, 1, 400); // escape bytes: would garble the terminal if shown raw
      writeFileSync(join(dir, `${rel}.bak.20261129-100000`), bin);
      symlinkSync(join(outside, 'secret'), join(dir, `${rel}.bak.20261129-110000`));
      execFileSync('mkfifo', [join(dir, `${rel}.bak.20261129-120000`)]);
      const m = await mount(dir);
      const idx = m.store.getState().ws.partials.findIndex((p) => p.path === rel);
      expect(idx).toBeGreaterThanOrEqual(0);
      await m.press('2', 'g', ...Array(idx).fill('j'), 'B');
      await m.waitFor(`Backups of ${rel} 1 found`);
      await m.waitFor('binary, not diffed (the backup contains NUL bytes');
      const f = m.frame();
      expect(f).not.toContain('bak.20261129-110000');
      expect(f).not.toContain('bak.20261129-120000');
      expect(f).not.toContain('TOP-SECRET');
      expect(f).not.toMatch(/^[-+]/m); // no diff rows of raw bytes
      expect(f).not.toContain('\\e');
      expect(readFileSync(join(outside, 'secret'), 'utf8')).toBe('TOP-SECRET-OUTSIDE\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
      rmSync(outside, { recursive: true, force: true });
    }
  });
});
