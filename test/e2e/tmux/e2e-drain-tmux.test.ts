import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { hasTmux, tmuxRooms, CLI } from '../../helpers/tmux.js';
import { cleanup, eventsOf, workspace } from '../../helpers/matrix.js';
import { tempDir } from '../../helpers/workspace.js';

// Drain in the real control room (docs/drain.md): the built binary in tmux at 80×24, NO_COLOR
// and --ascii; `checkroom drain` from another shell goes through its control socket, so the
// driver applies it; the header says DRAINING (1 running) while the run finishes, then
// DRAINED, and `status --json` (the socket's) carries the same.

describe.skipIf(!hasTmux())('drain in the control room (tmux 80x24 and 120x40, NO_COLOR, --ascii)', () => {
  const { room } = tmuxRooms(afterAll);
  let ws: string | null = null;
  afterEach(() => cleanup(ws));

  it.each([
    [80, 24],
    [120, 40],
  ])('%i×%i: checkroom drain through the socket: DRAINING (1 running), the run finishes, DRAINED; nothing else launched', { timeout: 150_000 }, async (cols, rows) => {
    ws = workspace('local', { units: ['ch01', 'ch02'], faults: { 'ch01/research': 'chatty' } });
    const yaml = join(ws, 'checkroom.yaml');
    writeFileSync(yaml, readFileSync(yaml, 'utf8').replace("CHECKROOM_FAKE_SPEED: '10'", "CHECKROOM_FAKE_SPEED: '10', CHECKROOM_FAKE_CHATTY_MS: '5000'"));
    const xdg = tempDir('checkroom-xdg-');
    const env = { ...process.env, XDG_RUNTIME_DIR: xdg, NO_COLOR: '1' };
    const t = room(`${ws} --ascii`, { cols, rows, env: { XDG_RUNTIME_DIR: xdg, NO_COLOR: '1' } });
    await t.waitFor(/^auto off - live: /m);
    t.keys('/', 'ch01', 'Enter', '3');
    await t.waitFor(/> P3 ch01 research/);
    t.keys('Enter');
    await t.waitFor('Confirm: Launch ch01 research');
    t.keys('y');
    await t.waitFor(/ch01 research\s+running/);

    const drain = await execa(process.execPath, [CLI, 'drain', ws], { env, reject: false });
    expect(drain.stdout).toMatch(/^draining: no new launch; 1 running, left to finish \(applied by the control room, pid \d+\)$/);
    const draining = await t.waitFor(/DRAINING \(1 running\)/);
    // The header's first line, whole at the terminal's width.
    expect(draining.split('\n')[0]).toMatch(/^checkroom - .* - DRAINING \(1 running\)\s*$/);
    const status = JSON.parse((await execa(process.execPath, [CLI, 'status', ws, '--json'], { env })).stdout) as { pause: { drain: { running: number; drained: boolean; by: string } } };
    expect(status.pause.drain).toMatchObject({ running: 1, drained: false, by: expect.stringMatching(/via checkroom drain$/) });

    const drained = await t.waitFor(/^checkroom - .* - DRAINED\s*$/m, 60_000);
    expect(drained).toMatch(/drained: the last run ended and nothing runs/);
    const after = JSON.parse((await execa(process.execPath, [CLI, 'status', ws, '--json'], { env })).stdout) as { pause: { drain: { running: number; drained: boolean } } };
    expect(after.pause.drain).toMatchObject({ running: 0, drained: true });
    // The run in flight finished proven; nothing else started (autopilot was never needed to be off).
    expect((await eventsOf(ws, 'exit')).map((e) => e.class)).toEqual(['SUCCESS']);
    expect(await eventsOf(ws, 'launch')).toHaveLength(1);
    expect(await eventsOf(ws, 'drained')).toHaveLength(1);
    // Under --ascii and NO_COLOR no byte above 0x7e reaches the screen.
    expect(drained).toMatch(/^[\x20-\x7e\n]*$/);
    // Quit (n: no RESUME.md), so the workspace is quiet before it is removed.
    t.keys('q');
    await t.waitFor('Quitting: write RESUME.md first?');
    t.keys('n');
    await t.waitFor('EXITED-0');
  });
});
