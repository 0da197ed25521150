import { afterEach, describe, expect, it } from 'vitest';
import { createLiveWorkspace } from '../../../src/live/live-workspace.js';
import { createAppStore } from '../../../src/ui/store/store.js';
import { NO_COLOR_THEME } from '../../../src/text/theme.js';
import { toTokens, type InkKeyLike } from '../../../src/ui/keys/keys.js';
import { renderRoom, tick, unmountAll } from '../../helpers/ink.js';
import { closeStores, openStore, PINNED_NOW } from '../../helpers/store.js';
import { copyDemo } from '../../helpers/workspace.js';

// No key lost after Esc (issue 21 item 6): Esc and the next key in one read ("\u001bj", tmux
// or a fast hand) reach Ink as "meta j". The Esc closes what is open, then the key acts.

afterEach(async () => {
  await unmountAll();
  await closeStores();
});

const NONE: InkKeyLike = {
  upArrow: false, downArrow: false, leftArrow: false, rightArrow: false, pageUp: false, pageDown: false,
  return: false, escape: false, tab: false, backspace: false, delete: false, ctrl: false, shift: false,
};

describe('Esc then a key at once', () => {
  it('toTokens reads "meta j" as Esc then j, and a lone Esc as one Esc', () => {
    expect(toTokens('j', { ...NONE, meta: true }).map((t) => t.name ?? t.ch)).toEqual(['escape', 'j']);
    expect(toTokens('', { ...NONE, meta: true, downArrow: true }).map((t) => t.name ?? t.ch)).toEqual(['escape', 'down']);
    expect(toTokens('', { ...NONE, meta: true, escape: true }).map((t) => t.name ?? t.ch)).toEqual(['escape']);
  });

  it("through the store's feed: esc cancels the filter, then j moves in the view", async () => {
    const r = await openStore(copyDemo());
    await r.press('2');
    const at = r.s().cursors.partials;
    r.burst('/', 'zz', 'esc', 'j');
    expect(r.s().prompt).toBeNull();
    expect(r.s().filter).toBe('');
    expect(r.s().cursors.partials).toBe(at + 1);
  });

  it('through Ink: a burst "\\u001bj" closes the : line, then j moves the cursor', async () => {
    const root = copyDemo();
    const live = await createLiveWorkspace(root, { watch: false });
    const store = createAppStore({ live, now: PINNED_NOW });
    await store.getState().idle();
    const room = await renderRoom(store, live, NO_COLOR_THEME, 24, 80);
    await room.press('2', ':', 'p', 'l');
    expect(store.getState().prompt).toMatchObject({ kind: 'command', text: 'pl' });
    const at = store.getState().cursors.partials;
    room.r.stdin.write('\u001bj');
    await tick(120);
    expect(store.getState().prompt).toBeNull();
    expect(store.getState().view).toBe('partials');
    expect(store.getState().cursors.partials).toBe(at + 1);
    expect(room.frame()).not.toContain(':pl');
    // The key in the next read, within Ink's delay for a lone Esc: the same two keys.
    await room.press(':', 'h');
    room.r.stdin.write('\u001b');
    room.r.stdin.write('j');
    await tick(120);
    expect(store.getState().prompt).toBeNull();
    expect(store.getState().cursors.partials).toBe(at + 2);
  });
});
