import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { PHASE_1_2, doneFile, summaries, tempDir, writeFiles } from '../../helpers/workspace.js';
import { settle } from '../../helpers/settle.js';
import { CLI, hasTmux, tmuxRooms } from '../../helpers/tmux.js';

// Multi-select in the built binary at 80×24 (issue 21 item 3): two half-products marked
// with space, d, one preview for both, y, and both are backed up and queued for relaunch.

const tmuxMissing = !hasTmux();
if (tmuxMissing) console.warn('e2e-marks: SKIPPED — tmux is not installed (apt-get install tmux); CI installs it');

const UNITS = ['ch01', 'ch02', 'ch03'];

function workspace(): string {
  const root = tempDir('checkroom-e2e-marks-');
  const files: Record<string, string> = {
    'checkroom.yaml': `preset: book\nunits: { list: [${UNITS.join(', ')}] }\nbatches: [{ id: 1, units: [${UNITS.join(', ')}] }]\n`,
    ...PHASE_1_2,
    'meta/chapter-summaries.md': summaries([]),
  };
  for (const u of UNITS) {
    const [p, text] = doneFile(u, 'research');
    files[p] = text;
    files[`drafts/${u}-draft.md`] = `# ${u} draft\n\nThe writer stopped in the middle of a`;
  }
  writeFiles(root, files);
  mkdirSync(join(root, 'drafts'), { recursive: true });
  settle(root);
  return root;
}

describe.skipIf(tmuxMissing)('marks end to end (tmux 80×24 and 120×40)', () => {
  const { room } = tmuxRooms(afterAll);

  it.each([
    [80, 24],
    [120, 40],
  ])('%i×%i: space marks two partials, d opens one preview for both, y backs both up and queues both', { timeout: 120_000 }, async (cols, rows) => {
    expect(existsSync(CLI), 'run `npm run build` first').toBe(true);
    const dir = workspace();
    const t = room(dir, { cols, rows });
    await t.waitFor('checkroom · ');
    t.keys('2');
    await t.waitFor('Half-products (3)');
    t.keys('Space', 'Space');
    const marked = await t.waitFor('2 marked: b d m s act on them');
    expect(marked).toMatch(/^ \*\S.*drafts\/ch01-draft\.md/m);
    expect(marked).toMatch(/^ \*\S.*drafts\/ch02-draft\.md/m);
    expect(marked).toMatch(/^› \S.*drafts\/ch03-draft\.md/m);
    t.keys('d');
    const preview = await t.waitFor('Confirm: Redo 2 marked files');
    // One dialog naming both files, the third left alone.
    expect(preview.match(/Confirm:/g)).toHaveLength(1);
    expect(preview).toContain('drafts/ch01-draft.md → drafts/ch01-draft.md.bak.');
    expect(preview).toContain('drafts/ch02-draft.md → drafts/ch02-draft.md.bak.');
    expect(preview).not.toContain('drafts/ch03-draft.md →');
    t.keys('y');
    const backups = () => readdirSync(join(dir, 'drafts')).filter((f) => f.includes('.bak.'));
    await t.waitFor(() => backups().length === 2);
    expect(backups().map((f) => f.split('.bak.')[0]).sort()).toEqual(['ch01-draft.md', 'ch02-draft.md']);
    expect(existsSync(join(dir, 'drafts/ch03-draft.md'))).toBe(true);
    await t.waitFor(/backed up and queued drafts\/ch01-draft\.md, drafts\/ch02-draft\.md/);
    // Both queued: the Plan lists them first, as queued redos.
    t.keys('3');
    const plan = await t.waitFor('2 queued for relaunch');
    expect(plan).toMatch(/Q ch01 draft\s+queued redo/);
    expect(plan).toMatch(/Q ch02 draft\s+queued redo/);
    t.keys('q');
    await t.waitFor('Quitting: write RESUME.md first?');
    t.keys('n');
    await t.waitFor('EXITED-0');
  });
});
