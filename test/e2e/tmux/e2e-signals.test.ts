import { afterAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { copyDemo } from '../../helpers/workspace.js';
import { hasTmux, tmuxRooms } from '../../helpers/tmux.js';

// SIGTERM and SIGHUP (a closed SSH connection) end the control room like `q`: the main
// screen comes back, the cursor is visible, the driver lock is released. In a real terminal
// (tmux 80×24), on the real bin, with a real signal.

const tmuxMissing = !hasTmux();

describe.skipIf(tmuxMissing)('signals (tmux 80×24)', () => {
  const { room } = tmuxRooms(afterAll);

  for (const signal of ['SIGTERM', 'SIGHUP'] as const) {
    it(`${signal}: the terminal is restored and the lock released`, { timeout: 60_000 }, async () => {
      const dir = copyDemo();
      const t = room(dir);
      await t.waitFor('checkroom ·');
      expect(t.alternateOn()).toBe(true);
      expect(existsSync(join(dir, '.checkroom', 'driver.lock'))).toBe(true);
      const shell = t.tmux('display-message', '-p', '-t', 'cr', '#{pane_pid}').trim();
      const node = execFileSync('pgrep', ['-P', shell], { encoding: 'utf8' }).trim().split('\n')[0];
      process.kill(Number(node), signal);
      await t.waitFor('EXITED-');
      expect(t.alternateOn()).toBe(false);
      expect(t.tmux('display-message', '-p', '-t', 'cr', '#{cursor_flag}').trim()).toBe('1');
      expect(existsSync(join(dir, '.checkroom', 'driver.lock'))).toBe(false);
    });
  }
});
