import { afterEach, describe, expect, it } from 'vitest';
import { closeStores, openStore } from '../../helpers/store.js';
import { copyDemo } from '../../helpers/workspace.js';

// docs/many.md: a control room opened from the overview goes back to it on Esc once nothing
// is left to close — ending as `l` at quit does (runs left running); opened alone, Esc never quits.

afterEach(closeStores);

describe('Esc in a control room opened from the overview', () => {
  it('closes what is open first, then ends the room with its runs left running', async () => {
    const r = await openStore(copyDemo(), { fromOverview: true });
    await r.press('/', 'ch0', 'enter');
    expect(r.s().filter).toBe('ch0');
    await r.press('esc');
    expect(r.s().filter).toBe('');
    expect(r.s().quit).toBe(false);
    await r.press('esc');
    expect(r.s().quit).toBe(true);
    expect(r.s().agents.quitMode).toBe('leave');
  });

  it('opened alone, Esc with nothing open does not quit', async () => {
    const r = await openStore(copyDemo());
    await r.press('esc', 'esc');
    expect(r.s().quit).toBe(false);
    expect(r.s().agents.quitMode).toBeNull();
  });
});
