import { afterAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { readJournal, type SessionEvent } from '../../../src/run/journal/journal.js';
import { copyDemo } from '../../helpers/workspace.js';
import { hasTmux, tmuxRooms } from '../../helpers/tmux.js';

// docs/many.md: the overview sent SIGTERM while a control room it opened has the terminal —
// the room ends by its own path first (the stop journalled, its driver lock released), then
// the overview restores the terminal and exits 128+15. Before, the overview exited at once
// and left the room drawing on a terminal whose shell had come back.

describe.skipIf(!hasTmux())('e2e: SIGTERM to the overview with a room open', () => {
  const { room } = tmuxRooms(afterAll);

  it('the room stops first, journalled; the overview exits 143 with the terminal restored', { timeout: 120_000 }, async () => {
    const [a, b] = [copyDemo(), copyDemo()];
    const t = room(`${a} ${b}`);
    await t.waitFor('checkroom overview', 45_000);
    await t.waitFor(`${a}: `, 45_000);
    t.keys('Enter');
    await t.waitFor(/^auto off · live: /m, 45_000);
    expect(existsSync(join(a, '.checkroom', 'driver.lock'))).toBe(true);
    const sh = t.tmux('display-message', '-p', '-t', 'cr', '#{pane_pid}').trim();
    // The pane runs sh; the overview is its node child (the room is the overview's child).
    const overview = Number(execFileSync('pgrep', ['-P', sh, 'node'], { encoding: 'utf8' }).trim().split('\n')[0]);
    process.kill(overview, 'SIGTERM');
    await t.waitFor('EXITED-143', 45_000);
    expect(t.alternateOn()).toBe(false);
    expect(existsSync(join(a, '.checkroom', 'driver.lock'))).toBe(false);
    const stop = (await readJournal(a)).events.filter((e): e is SessionEvent => e.type === 'session' && e.kind === 'stop').at(-1);
    expect(stop?.reason).toBe('SIGTERM');
  });
});
