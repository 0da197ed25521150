import { afterAll, describe, expect, it } from 'vitest';
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { copyDemo, REPO } from '../helpers/workspace.js';
import { hasTmux, TmuxSession } from '../helpers/tmux.js';

// Format characters (zero-width space, soft hyphen) in a half-product, in a real terminal at
// 80x24: each one used to cost a visible character at the end of its line (`B1 abc\u200bdef`
// read `B1 abcde`), because the terminal and our measure disagreed on its width. Escaped by
// sanitize, every character of the line is on screen.

const CLI = join(REPO, JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).bin.checkroom);

describe.skipIf(!hasTmux())('torture: format characters lose no text (tmux 80x24)', () => {
  const sessions: TmuxSession[] = [];
  afterAll(() => sessions.forEach((s) => s.kill()));

  it('the Partials tail shows the whole line, the format characters escaped', { timeout: 120_000 }, async () => {
    const root = copyDemo();
    appendFileSync(join(root, 'research/ch07-research.md'), '\nB1 abc\u200bdef co\u00adop a\u2060b end\n');
    const t = new TmuxSession(`sh -c 'node ${CLI} --readonly ${root}; sleep 600'`);
    sessions.push(t);
    await t.waitFor(/^checkroom · /m);
    t.keys('2');
    await t.waitFor('research/ch07-research.md');
    t.keys('j');
    t.keys('j');
    const screen = await t.waitFor('B1 abc');
    expect(screen).toContain('B1 abc\\u200bdef co\\xadop a\\u2060b end');
  });
});
