import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadWorkspace } from '../../../src/workspace.js';
import { copyDemo } from '../../helpers/workspace.js';
import { hasTmux, tmuxRooms, CLI } from '../../helpers/tmux.js';

// The real built binary (`npm test` builds first) in a real terminal: tmux at 80×24 on a
// copy of the demo workspace. Screen and disk are both checked; the exit restores the
// terminal (main screen back, shell continues with the exit code).

// The real binary, as `npm install` links it (package.json "bin": the bundle).
const tmuxMissing = !hasTmux();
if (tmuxMissing) console.warn('e2e-tui: SKIPPED — tmux is not installed (apt-get install tmux); CI installs it');

describe.skipIf(tmuxMissing)('control room end to end (tmux 80×24)', () => {
  const { room } = tmuxRooms(afterAll);

  it('reads the header, backs a partial up and undoes it, rewrites checkpoint.md, quits cleanly', { timeout: 120_000 }, async () => {
    expect(existsSync(CLI), 'run `npm run build` first').toBe(true);
    const dir = copyDemo();
    const state = await loadWorkspace(dir);
    const idx = state.partials.findIndex((p) => p.verdict === 'almost_certainly_partial');
    const target = state.partials[idx].path;
    const checkpointBefore = readFileSync(join(dir, 'checkpoint.md'), 'utf8');

    const t = room(dir);

    // Header.
    const first = await t.waitFor(`checkroom · ${state.name}`);
    expect(first).toMatch(/Phase \d+ /);
    // The files the Partials tab lists (issue 18), not the cells whose status is partial.
    expect(first).toMatch(/\d+\/\d+ done · \d+ partials? · \d+ failed · \d+ needs human · \d+ running/);
    expect(first).toMatch(/live: (watch|poll|off)/);
    // The frame fits: its first row is still the header's first row (nothing scrolled off).
    expect(first.split('\n')[0]).toContain(`checkroom · ${state.name}`);
    expect(t.alternateOn()).toBe(true);

    // Partials: move to the almost-certain partial (one burst of j's), back it up.
    t.keys('2');
    await t.waitFor('Half-products');
    if (idx > 0) t.keys('j'.repeat(idx));
    await t.waitFor(`› almost_certainly_partial`);
    t.keys('b');
    await t.waitFor('Confirm: Back up');
    t.keys('y');
    await t.waitFor(() => !existsSync(join(dir, target)));
    const backups = () => readdirSync(join(dir, target, '..')).filter((f) => f.startsWith(`${target.split('/').pop()}.bak.`));
    expect(backups()).toHaveLength(1);
    await t.waitFor('(u undoes)');

    // Undo: the file is back under its name.
    t.keys('u');
    await t.waitFor('Confirm: Undo');
    t.keys('y');
    // undoBackup links the name back, then unlinks the backup: wait for both, not the first.
    await t.waitFor(() => existsSync(join(dir, target)) && backups().length === 0);
    expect(backups()).toHaveLength(0);
    await t.waitFor(`restored ${target}`);

    // Sources: rewrite checkpoint.md from the disk.
    t.keys('4');
    await t.waitFor('checkpoint.md (');
    t.keys('w');
    await t.waitFor(/Confirm: Rewrite checkpoint\.md: \d+ cells? change/);
    t.keys('Enter');
    await t.waitFor(() => readFileSync(join(dir, 'checkpoint.md'), 'utf8') !== checkpointBefore);
    await t.waitFor('wrote checkpoint.md');
    expect(readdirSync(dir).filter((f) => f.startsWith('checkpoint.md.bak.'))).toHaveLength(1);

    // Quit: exit code 0, main screen back, nothing of the control room left on it.
    // The demo's RESUME.md is stale: quitting offers to rewrite it first; n quits without writing.
    t.keys('q');
    await t.waitFor('Quitting: write RESUME.md first?');
    t.keys('n');
    const after = await t.waitFor('EXITED-0');
    expect(after).not.toContain('checkroom ·');
    expect(after).not.toContain('Sources');
    expect(t.alternateOn()).toBe(false);
  });
});
