import { afterAll, describe, expect, it } from 'vitest';
import { copyDemo } from '../../helpers/workspace.js';
import { hasTmux, tmuxRooms } from '../../helpers/tmux.js';

// Read-only, in a real terminal: a second checkroom on a workspace another one drives says
// who drives (not "--readonly"), and does not take the live session for an interrupted one;
// --readonly alone says --readonly (not "another checkroom drives").


describe.skipIf(!hasTmux())('read-only instances (tmux 80×24)', () => {
  const { room: open } = tmuxRooms(afterAll);

  it('a second instance names the driver and shows no recover report; --readonly says --readonly', { timeout: 60_000 }, async () => {
    const dir = copyDemo();
    const first = open(dir);
    await first.waitFor('checkroom ·');
    await first.waitFor('The last session was interrupted'); // the demo's own evidence, for the driver

    const second = open(dir);
    const screen = await second.waitFor(/read-only: pid \d+@\S+ drives/);
    expect(screen).not.toContain('The last session was interrupted');
    second.keys('3', 'a');
    await second.waitFor(/read-only mode: "autopilot" is disabled \(pid \d+@\S+ drives this workspace\)/);

    const third = open(`--readonly ${dir}`);
    const ro = await third.waitFor('checkroom ·');
    expect(ro).not.toMatch(/drives/);
    await third.waitFor('read-only (--readonly)');
  });
});
