import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { anchorFrame } from '../../../src/ui/term/anchored-stdout.js';
import { hasTmux, TmuxSession } from '../../helpers/tmux.js';
import { REPO, copyDemo } from '../../helpers/workspace.js';

// Ink's incremental frames start with relative moves; the control room anchors each frame at
// the top-left corner and clears below it, so a misjudged frame never shifts the next ones.

const E = '\u001b[';

describe('anchorFrame', () => {
  it('replaces the way up to the last frame with home, and clears below the frame', () => {
    expect(anchorFrame(`${E}22A${E}E${E}1Gline 2${E}K\n`, false)).toBe(`${E}H${E}E${E}1Gline 2${E}K\n${E}J`);
    expect(anchorFrame(`${E}?2026h${E}2K${E}1A${E}2K${E}G${E}3Aa\n`, false)).toBe(`${E}?2026h${E}Ha\n${E}J`);
  });

  it('anchors the first frame, and leaves other writes alone', () => {
    expect(anchorFrame('header\nrow\n', true)).toBe(`${E}Hheader\nrow\n${E}J`);
    expect(anchorFrame('header\nrow\n', false)).toBe('header\nrow\n');
    expect(anchorFrame(`${E}?25l`, true)).toBe(`${E}?25l`);
    expect(anchorFrame(`${E}?2026l`, false)).toBe(`${E}?2026l`);
  });
});

const BIN = resolve(REPO, 'dist', 'bundle', 'checkroom.js');

describe.skipIf(!hasTmux())('the frame after an overlay closes (tmux 80×24)', () => {
  it('has no row twice and nothing shifted: closing the recover report leaves the Progress view whole', async () => {
    const dir = copyDemo();
    // An interrupted session in the journal: the report opens on start.
    spawnSync('mkdir', ['-p', join(dir, '.checkroom')]);
    spawnSync('sh', ['-c', `printf '%s\\n' '{"v":1,"type":"session","at":1,"kind":"start","pid":999999}' > ${JSON.stringify(join(dir, '.checkroom/journal.jsonl'))}`]);
    const t = new TmuxSession(`node ${BIN} ${dir} --readonly`);
    try {
      await t.waitFor('The last session was interrupted');
      t.keys('Escape');
      const screen = await t.waitFor((): boolean => !t.capture().includes('The last session was interrupted'));
      const rows = t.capture().split('\n');
      expect(rows[0], screen).toMatch(/^checkroom · /);
      expect(rows[4], screen).toMatch(/^Phases\s+Batches/);
      expect(rows[5], screen).toMatch(/^1 Outline/);
      expect(rows.filter((r) => /^Phases\s+Batches/.test(r))).toHaveLength(1);
    } finally {
      t.kill();
    }
  });
});
