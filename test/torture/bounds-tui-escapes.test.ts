import { afterAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from '../helpers/workspace.js';
import { hasTmux, TmuxSession } from '../helpers/tmux.js';
import { evilWorkspace } from './evil-workspace.js';

// Issue 8 item 9, escape injection into the control room itself, in a real terminal: the
// workspace's names, contents and journal carry a screen clear, an OSC 0 title and an OSC 52
// clipboard write. tmux applies whatever reaches it, so a title that stays ours and the
// escaped text on screen (a raw ESC[2J would have cleared it) prove nothing raw got through.

const CLI = join(REPO, JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).bin.checkroom);
const title = (t: TmuxSession) => t.tmux('display-message', '-p', '-t', 'cr', '#{pane_title}').trim();

describe.skipIf(!hasTmux())('torture: escape injection into the control room (tmux 80x24)', () => {
  const sessions: TmuxSession[] = [];
  afterAll(() => sessions.forEach((s) => s.kill()));

  it('no view lets a title, clipboard or clear-screen sequence through', { timeout: 120_000 }, async () => {
    const { root } = evilWorkspace();
    const t = new TmuxSession(`sh -c 'printf "\\033]2;checkroom-safe\\007"; node ${CLI} --readonly ${root}; sleep 600'`);
    sessions.push(t);
    await t.waitFor(/^checkroom · /m);
    const seen: string[] = [];
    for (const key of ['1', '2', '3', '4', '5', '1']) {
      t.keys(key);
      const screen = await t.waitFor(/\[\d [A-Z][a-z]+/);
      seen.push(screen);
      expect(title(t)).toBe('checkroom-safe');
    }
    // The escaped form is what the operator reads.
    expect(seen.join('\n')).toContain('\\e[2J');
    // The recover report and the detail of the evil cell, too.
    t.keys('2');
    t.keys('Enter');
    await t.waitFor(/\[\d [A-Z][a-z]+/);
    expect(title(t)).toBe('checkroom-safe');
    let buffer = '';
    try {
      buffer = t.tmux('show-buffer');
    } catch {
      // no paste buffer at all: nothing was written to the clipboard
    }
    expect(buffer).not.toContain('rm -rf');
  });
});
