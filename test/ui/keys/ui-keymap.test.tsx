import { describe, expect, it } from 'vitest';
import { commandById, footerHints, helpRows, KEYMAP, matchCommand } from '../../../src/ui/keys/keymap.js';
import { toTokens, type InkKeyLike } from '../../../src/ui/keys/keys.js';
import { parseCommandLine } from '../../../src/ui/keys/command-line.js';
import { scrollWindow } from '../../../src/ui/views/window.js';
import { wrapLine } from '../../../src/text/wrap.js';
import { matchesFilter } from '../../../src/ui/views/filter.js';
import { VIEWS } from '../../../src/ui/views/views.js';

// The pure pieces under the control room: key splitting, the key table, the command line,
// windowing and wrapping — no React, no terminal.

const NO_KEY: InkKeyLike = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageUp: false,
  pageDown: false,
  return: false,
  escape: false,
  tab: false,
  backspace: false,
  delete: false,
  ctrl: false,
  shift: false,
};

describe('toTokens', () => {
  it('splits a burst of plain keys, including Enter inside it', () => {
    expect(toTokens('jjj', NO_KEY).map((t) => t.ch)).toEqual(['j', 'j', 'j']);
    expect(toTokens('jj\r', NO_KEY).map((t) => t.name ?? t.ch)).toEqual(['j', 'j', 'return']);
    expect(toTokens('G', NO_KEY)[0]).toMatchObject({ ch: 'G', shift: true });
  });

  it('keeps a named key (escape sequence) as one token, and ctrl-c as ctrl', () => {
    expect(toTokens('', { ...NO_KEY, downArrow: true })).toEqual([{ ch: '', name: 'down', ctrl: false, shift: false }]);
    expect(toTokens('[B', { ...NO_KEY, downArrow: true })).toHaveLength(1);
    expect(toTokens('c', { ...NO_KEY, ctrl: true })).toEqual([{ ch: 'c', name: null, ctrl: true, shift: false }]);
  });
});

describe('the key table', () => {
  const key = (ch: string) => toTokens(ch, NO_KEY)[0];

  it('maps keys to commands by view and scope', () => {
    expect(matchCommand(key('b'), 'main', 'partials')?.id).toBe('partial.backup');
    expect(matchCommand(key('b'), 'main', 'progress')).toBeNull();
    expect(matchCommand(key('w'), 'main', 'sources')?.id).toBe('checkpoint.write');
    expect(matchCommand(key('y'), 'dialog', 'partials')?.id).toBe('dialog.confirm');
    expect(matchCommand(key('y'), 'main', 'partials')).toBeNull();
    expect(matchCommand({ ch: 'c', name: null, ctrl: true, shift: false }, 'main', 'plan')?.id).toBe('quit');
    expect(matchCommand(key('c'), 'main', 'partials')?.id).toBe('partial.conservative');
  });

  it('has no key bound twice in one scope and view', () => {
    for (const scope of ['main', 'dialog', 'prompt'] as const) {
      for (const v of VIEWS) {
        const seen = new Set<string>();
        for (const c of KEYMAP.filter((k) => k.scope === scope && (k.views === 'all' || k.views.includes(v.id)))) {
          for (const b of c.keys) {
            const id = JSON.stringify(b);
            expect(seen.has(id), `${id} bound twice in ${scope}/${v.id}`).toBe(false);
            seen.add(id);
          }
        }
      }
    }
  });

  it('every action that writes is dangerous; read-only drops them from the footer and marks them in help', () => {
    for (const id of ['partial.backup', 'partial.keep', 'partial.redo', 'partial.conservative', 'undo', 'checkpoint.write'] as const) expect(commandById(id).dangerous).toBe(true);
    expect(commandById('partial.skip').dangerous).toBe(false);
    const rw = footerHints('main', 'partials', false).map((h) => h.hint);
    const ro = footerHints('main', 'partials', true).map((h) => h.hint);
    expect(rw).toContain('back up');
    expect(ro).not.toContain('back up');
    expect(ro).toContain('skip');
    expect(helpRows(true).find((r) => r.keys === 'b')?.disabled).toBe(true);
  });
});

describe('command line', () => {
  it('maps names to commands and rejects unknown ones with a hint', () => {
    expect(parseCommandLine('plan')).toEqual({ id: 'view.plan', args: '' });
    expect(parseCommandLine(':q')).toEqual({ id: 'quit', args: '' });
    expect(parseCommandLine('write-checkpoint')).toEqual({ id: 'checkpoint.write', args: '' });
    expect(parseCommandLine('frobnicate')).toMatchObject({ error: expect.stringContaining('unknown command ":frobnicate"') });
  });
});

describe('windowing, wrapping, filtering', () => {
  it('keeps the window still while the cursor is inside, scrolls just enough otherwise', () => {
    expect(scrollWindow(0, 3, 5, 40)).toMatchObject({ start: 0, end: 5 });
    expect(scrollWindow(0, 5, 5, 40)).toMatchObject({ start: 1, end: 6 });
    expect(scrollWindow(10, 12, 5, 40)).toMatchObject({ start: 10 });
    expect(scrollWindow(10, 2, 5, 40)).toMatchObject({ start: 2 });
    expect(scrollWindow(0, 39, 5, 40)).toMatchObject({ start: 35, end: 40 });
    expect(scrollWindow(30, 0, 5, 3)).toMatchObject({ start: 0, end: 3 });
  });

  it('wraps by display width, at spaces when it can, never inside a name (issue 18 item 5)', () => {
    const rows = wrapLine('drafts/ch05-draft.md → drafts/ch05-draft.md.bak.20261130-051200', 30);
    expect(rows.every((r) => r.length <= 30)).toBe(true);
    // The first path whole on its row; the second breaks after its `/`, and its name, wider
    // than a row, is elided in its middle (it used to be split mid-name).
    expect(rows.map((r) => r.trim())).toEqual(['drafts/ch05-draft.md →', 'drafts/', 'ch05-draft.md…61130-051200']);
    expect(wrapLine('文'.repeat(20), 20)).toHaveLength(3);
  });

  it('filters on all terms', () => {
    expect(matchesFilter('ch03 failed', 'ch03', 'r2', 'failed')).toBe(true);
    expect(matchesFilter('ch03 failed', 'ch03', 'r1', 'done')).toBe(false);
    expect(matchesFilter('', 'anything')).toBe(true);
  });
});
