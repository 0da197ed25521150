import { describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { copyDemo, REPO, tempDir } from '../../helpers/workspace.js';
import { hasTmux, TmuxSession } from '../../helpers/tmux.js';

// Issue 10 item 5: the first frame comes before the scan — a title and a progress line from
// a directory listing — and the room replaces it, every cell drawn, when the scan lands.
// Everything the program writes to its terminal is recorded (tmux pipe-pane) from before it
// starts, so the order of the frames is read from the bytes, not from a poll of the screen.

const CLI = join(REPO, JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).bin.checkroom);

describe.skipIf(!hasTmux())('the first frame (tmux 80×24)', () => {
  it('shows "scanning… N files" from the listing before the room, then the room with its counts', { timeout: 60_000 }, async () => {
    const dir = copyDemo();
    // Enough files for the count to be worth a frame (src/ui/entry/entry.ts); notes are not artifacts.
    mkdirSync(join(dir, 'notes'));
    for (let i = 0; i < 5200; i++) writeFileSync(join(dir, 'notes', `n${i}.md`), 'x\n');
    // What the listing counts: regular files outside hidden directories.
    const files = readdirSync(dir, { recursive: true, withFileTypes: true }).filter(
      (e) =>
        e.isFile() &&
        !relative(dir, join(e.parentPath, e.name))
          .split(sep)
          .some((p) => p.startsWith('.')),
    ).length;
    const rec = join(tempDir('checkroom-rec-'), 'out');
    const t = new TmuxSession(`sh -c 'while [ ! -e ${rec}.go ]; do sleep 0.05; done; node ${CLI} ${dir} --readonly; echo EXITED-$?; sleep 600'`);
    try {
      t.tmux('pipe-pane', '-o', '-t', 'cr', `cat >> ${rec}`);
      writeFileSync(`${rec}.go`, '');
      await t.waitFor(/\d+\/\d+ done/);
      t.keys('q');
      await t.waitFor('EXITED-');
      const out = existsSync(rec) ? readFileSync(rec, 'utf8') : '';
      const opening = out.indexOf('checkroom: opening');
      const count = out.indexOf(`${files.toLocaleString('en-US')} files`);
      const room = out.search(/\d+\/\d+ done/);
      expect(opening, out.slice(0, 400)).toBeGreaterThanOrEqual(0);
      expect(count).toBeGreaterThan(opening);
      expect(room).toBeGreaterThan(count);
    } finally {
      t.kill();
    }
  });
});
