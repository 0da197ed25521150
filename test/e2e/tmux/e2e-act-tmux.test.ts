import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { hasTmux, tmuxRooms, CLI } from '../../helpers/tmux.js';
import { cleanup, eventsOf } from '../../helpers/matrix.js';
import { copyDemo, tempDir } from '../../helpers/workspace.js';

// `checkroom redo --yes` and `checkroom redrive --yes` from another shell while the real
// control room drives (docs/redo.md, docs/redrive.md, From another terminal): the built binary
// in tmux at 80×24, NO_COLOR, --ascii; the room applies both through its socket as the entry wires it,
// and its message line tells the operator at the screen who asked and what was done.

describe.skipIf(!hasTmux())('redo and redrive from another shell (tmux 80x24, NO_COLOR, --ascii)', () => {
  const { room } = tmuxRooms(afterAll);
  let ws: string | null = null;
  afterEach(() => cleanup(ws));

  it('the room applies them, says so on its message line; the shell prints its answer', { timeout: 150_000 }, async () => {
    ws = copyDemo();
    const xdg = tempDir('checkroom-xdg-');
    const env = { ...process.env, XDG_RUNTIME_DIR: xdg, NO_COLOR: '1' };
    const t = room(`${ws} --ascii`, { cols: 80, rows: 24, env: { XDG_RUNTIME_DIR: xdg, NO_COLOR: '1' } });
    await t.waitFor(/^auto off - live: /m);

    const redo = await execa(process.execPath, [CLI, 'redo', ws, 'ch03', 'draft', '--yes'], { env, reject: false });
    expect(redo.exitCode).toBe(0);
    expect(redo.stdout).toMatch(/done: redo from ch03 draft: 4 backed up, 9 queued in the Plan view \(u undoes it\) \(applied by the control room, pid \d+\)$/);
    await t.waitFor(/via checkroom redo: redo from ch03 draft: 4 backed up/);
    expect(existsSync(join(ws, 'drafts/ch03-draft.md'))).toBe(false);
    expect(await eventsOf(ws, 'redo_applied')).toHaveLength(1);

    const hold = await execa(process.execPath, [CLI, 'redrive', ws, 'unit=ch05', 'step=draft', '--action', 'hold', '--name', 'h1', '--yes'], { env, reject: false });
    expect(hold.stdout).toMatch(/^h1: hold 1 cells, one journal record \(undo: checkroom redrive --undo h1 --yes\) \(applied by the control room, pid \d+\)$/);
    await t.waitFor(/via checkroom redrive: h1: hold 1 cells/);
    expect(await eventsOf(ws, 'bulk_action')).toHaveLength(1);
    // Only this room's session wrote the journal: the shell never drove.
    expect(new Set((await eventsOf(ws, 'session')).map((e) => e.pid)).size).toBe(1);

    t.keys('q');
    await t.waitFor(/Quitting: write RESUME.md first\?|EXITED-0/);
    if (!t.capture().includes('EXITED-0')) t.keys('n');
    await t.waitFor('EXITED-0');
  });
});
