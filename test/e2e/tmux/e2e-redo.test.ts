import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { copyDemo } from '../../helpers/workspace.js';
import { hasTmux, tmuxRooms } from '../../helpers/tmux.js';

// Redo from here in a real terminal at 80×24 and 120×40 (docs/redo.md): D on ch03's draft in Progress
// opens the preview, y backs up the draft and everything built on it, and the Plan shows
// the queued cells; the files on disk agree, and a restart shows the same queue.

describe.skipIf(!hasTmux())('redo from here (tmux 80×24 and 120×40)', () => {
  const { room } = tmuxRooms(afterAll);

  it.each([
    [80, 24],
    [120, 40],
  ])('%i×%i: D → preview → y → the Plan shows ch03 queued; the disk and a restart agree', { timeout: 90_000 }, async (cols, rows) => {
    const dir = copyDemo();
    const draft = readFileSync(join(dir, 'drafts/ch03-draft.md'), 'utf8');
    const t = room(dir, { cols, rows });
    await t.waitFor('The last session was interrupted');
    t.keys('Escape');
    await t.waitFor('[1 Progress]');
    t.keys('1', 'g', 'j', 'j', 'l');
    t.keys('D');
    const preview = await t.waitFor('Confirm: Redo from ch03 draft: 9 cells, 4 files');
    expect(preview).toContain(`1. ch03 draft: drafts/ch03-draft.md ${Buffer.byteLength(draft)} B, has its marker`);
    expect(preview).toContain('7. ch03 memory: meta/chapter-summaries.md');
    t.keys('y');
    await t.waitFor('redo from ch03 draft: 4 backed up, 9 queued');
    expect(existsSync(join(dir, 'drafts/ch03-draft.md'))).toBe(false);
    expect(readFileSync(join(dir, 'meta/chapter-summaries.md'), 'utf8')).toContain('## ch02');
    t.keys('3');
    const plan = await t.waitFor(/queued redo[\s\S]*queued redo/);
    expect(plan).toMatch(/ch03 draft/);
    expect(plan).toMatch(/ch03 r1/);

    // The queue is the journal's: quit, start again, the Plan shows it.
    t.keys('q');
    await t.waitFor(/EXITED-0|RESUME\.md/);
    if (!t.capture().includes('EXITED-0')) t.keys('n');
    await t.waitFor('EXITED-0');
    const again = room(dir, { cols, rows });
    await again.waitFor('checkroom ·');
    again.keys('3');
    await again.waitFor(/ch03 draft[\s\S]*queued redo|queued redo[\s\S]*ch03 draft/);
  });
});
