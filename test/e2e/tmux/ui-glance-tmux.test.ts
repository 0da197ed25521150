import { afterAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { stripVTControlCharacters } from 'node:util';
import stringWidth from 'string-width';
import { copyDemo } from '../../helpers/workspace.js';
import { hasTmux, tmuxRooms, CLI } from '../../helpers/tmux.js';

// Issue 18 item 5 in a real terminal: under NO_COLOR the built binary draws each list's
// selected row in reverse video across the whole row (the screen model and cell diff of
// ui/term/anchored-stdout.ts carry SGR 7 through), and sends no colour. tmux's capture-pane -e
// shows the attributes, -N keeps the row's trailing (reverse-video) blanks.

const tmuxMissing = !hasTmux();

/** Every SGR code on the screen, e.g. "7", "0", "39". */
const sgrCodes = (screen: string): string[] => [...screen.matchAll(/\u001b\[([\d;]*)m/g)].flatMap((m) => m[1]!.split(';'));

describe.skipIf(tmuxMissing)('the selection in a real terminal under NO_COLOR (tmux 80×24)', () => {
  const { room } = tmuxRooms(afterAll);

  it('Progress, Partials, Plan, Sources and Health: one reverse-video row, 80 columns wide, and no colour', { timeout: 120_000 }, async () => {
    expect(existsSync(CLI), 'run `npm run build` first').toBe(true);
    const t = room(copyDemo(), { env: { NO_COLOR: '1' } });
    await t.waitFor('[1 Progress]');
    const check = async (key: string, heading: string, row: RegExp) => {
      t.keys(key);
      await t.waitFor(heading);
      await t.waitFor(() =>
        t
          .tmux('capture-pane', '-e', '-N', '-p')
          .split('\n')
          .some((l) => l.includes('\u001b[7m') && row.test(stripVTControlCharacters(l))),
      );
      const screen = t.tmux('capture-pane', '-e', '-N', '-p');
      const inverse = screen.split('\n').filter((l) => l.includes('\u001b[7m'));
      expect(inverse, screen).toHaveLength(1);
      expect(stripVTControlCharacters(inverse[0]!), key).toMatch(row);
      expect(stringWidth(stripVTControlCharacters(inverse[0]!)), key).toBe(80);
      // Reverse video and resets only: no colour reached the terminal.
      for (const c of sgrCodes(screen)) expect(['', '0', '7', '27', '39', '49'], `SGR ${c} in view ${key}`).toContain(c);
    };
    await check('1', '[1 Progress]', /^›ch01 B1/);
    t.keys('j');
    await t.waitFor(() =>
      stripVTControlCharacters(
        t
          .tmux('capture-pane', '-e', '-N', '-p')
          .split('\n')
          .find((l) => l.includes('\u001b[7m')) ?? '',
      ).startsWith('›ch02'),
    );
    await check('2', '[2 Partials', /^› maybe_complete .*ch02-panel\.md/);
    await check('3', '[3 Plan', /^› P1 ch06 draft +needs you /);
    await check('4', '[4 Sources', /^› ch02 panel /);
    await check('5', '[5 Health]', /^› agent archivist /);
    // Quit, so nothing writes in the workspace while the test's temp directory is removed.
    // The demo's RESUME.md is stale: quitting offers to rewrite it first; n quits without writing.
    t.keys('q');
    await t.waitFor('Quitting: write RESUME.md first?');
    t.keys('n');
    await t.waitFor('EXITED-0');
  });
});
