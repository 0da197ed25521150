import { afterAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { copyDemo } from '../../helpers/workspace.js';
import { hasTmux, tmuxRooms, CLI } from '../../helpers/tmux.js';
import { writeAttempts } from '../../helpers/attempt-logs.js';

// The log pager in a real terminal (docs/logs.md): the built binary in tmux at 80×24 under
// NO_COLOR, a failed cell with two attempts whose logs are real files named by the journal.
// L opens the latest, [ goes to attempt 1, e jumps to the line the classifier blamed, /
// finds the other mention, esc closes; the agent's escape sequence is drawn escaped.


describe.skipIf(!hasTmux())("the log pager on a failed cell's attempt 1 (tmux 80×24)", () => {
  const { room } = tmuxRooms(afterAll);

  it('L, [, e, / and esc on the built control room', { timeout: 120_000 }, async () => {
    expect(existsSync(CLI), 'run `npm run build` first').toBe(true);
    const dir = copyDemo();
    const noise = Array.from({ length: 80 }, (_, i) => `step ${i + 1}: reading sources`);
    writeAttempts(dir, [
      {
        unit: 'ch01',
        step: 'research',
        agent: 'researcher',
        attempts: [
          { lines: ['start', ...noise.slice(0, 50), 'Error: 429 Too Many Requests \u001b]2;owned\u0007', ...noise.slice(50), 'retry later'], class: 'RATE_LIMITED', error: 'Error: 429 Too Many Requests \\e]2;owned\\a (exit 1)' },
          { lines: ['start', 'fake-agent crashed'], class: 'UNKNOWN', error: 'fake-agent crashed (exit 1)' },
        ],
      },
    ]);
    const t = room(dir, { env: { NO_COLOR: '1' } });
    await t.waitFor('[1 Progress]');
    t.keys('L');
    let screen = await t.waitFor('log · ch01 research · attempt 2 (2 of 2) · researcher · UNKNOWN');
    expect(screen).toMatch(/^2 fake-agent crashed/m);
    t.keys('[');
    screen = await t.waitFor('attempt 1 (1 of 2) · researcher · RATE_LIMITED');
    expect(screen).toMatch(/^ 1 start/m);
    t.keys('e');
    screen = await t.waitFor('the error: Error: 429');
    expect(screen).toMatch(/^52 Error: 429 Too Many Requests \\e\]2;owned\\a/m);
    // The terminal's title was not set by the agent's OSC 2.
    expect(t.tmux('display-message', '-p', '#{pane_title}')).not.toContain('owned');
    t.keys('g', '/', 'r', 'e', 't', 'r', 'y', 'Enter');
    screen = await t.waitFor('/retry at line 83');
    expect(screen).toMatch(/^83 retry later/m);
    for (const l of screen.split('\n')) expect(l.length).toBeLessThanOrEqual(80);
    t.keys('Escape');
    await t.waitFor('[1 Progress]');
  });
});
