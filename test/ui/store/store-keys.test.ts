import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppState } from '../../../src/ui/store/types.js';
import { planRun, promptKey } from '../../../src/ui/store/keys.js';
import { planDetail } from '../../../src/ui/store/detail.js';
import { closeStores, openStore, tokens } from '../../helpers/store.js';
import { copyDemo } from '../../helpers/workspace.js';

// The store's own routers (issue 9 item 3) on plain values: the read-only and busy gates of
// `run`, the prompt line's editing, and which cell `enter` opens. One state scanned from a
// copy of the demo workspace, then plain copies of it.

let base: AppState;
beforeAll(async () => {
  base = (await openStore(copyDemo())).s();
});
afterAll(closeStores);

const key = (k: string) => tokens(k)[0];

describe('planRun', () => {
  it('movement and views are answered by nav, every other command by its table row', () => {
    expect(planRun(base, 'move.down')).toBe('nav');
    expect(planRun(base, 'view.plan')).toBe('nav');
    expect(planRun(base, 'partial.backup')).toBe('table');
    expect(planRun(base, 'help')).toBe('table');
  });

  it('read-only refuses dangerous and running commands with the reason; reading keys still work', () => {
    const ro = { ...base, readonly: true };
    expect(planRun(ro, 'partial.backup')).toEqual({ say: 'read-only mode: "back up" is disabled (started with --readonly)', tone: 'warn' });
    expect(planRun(ro, 'run.launch')).toMatchObject({ tone: 'warn' });
    expect(planRun(ro, 'help')).toBe('table');
    const driven = { ...ro, agents: { ...ro.agents, snap: { role: 'readonly', holder: { pid: 7, host: 'h' } } as never } };
    expect(planRun(driven, 'partial.backup')).toEqual({ say: 'read-only mode: "back up" is disabled (pid 7@h drives this workspace)', tone: 'warn' });
  });

  it('a dangerous command waits while another disk action runs', () => {
    expect(planRun({ ...base, busy: 'backing up' }, 'partial.backup')).toEqual({ say: 'busy: backing up; try again when it is done', tone: 'warn' });
    expect(planRun({ ...base, busy: 'backing up' }, 'move.down')).toBe('nav');
  });
});

describe('promptKey', () => {
  const filter = { kind: 'filter' as const, text: 'ch0' };

  it('typing edits the filter as it goes; backspace takes one character', () => {
    expect(promptKey(base, filter, key('7'))).toMatchObject({ change: { prompt: { kind: 'filter', text: 'ch07' }, filter: 'ch07' } });
    expect(promptKey(base, filter, key('backspace'))).toMatchObject({ change: { prompt: { text: 'ch' }, filter: 'ch' } });
    expect(promptKey(base, filter, key('up'))).toBeNull();
  });

  it('enter keeps the filter and says it; esc drops it', () => {
    expect(promptKey(base, filter, key('enter'))).toEqual({ change: { prompt: null, message: { text: 'filter: ch0', tone: 'info' } } });
    expect(promptKey(base, filter, key('esc'))).toMatchObject({ change: { prompt: null, filter: '' } });
  });

  it('a : line runs its command, or says what went wrong', () => {
    expect(promptKey(base, { kind: 'command', text: 'recover' }, key('enter'))).toEqual({ run: 'recover.open', args: '', change: { commandHistory: ['recover'] } });
    expect(promptKey(base, { kind: 'command', text: 'undo  Batch 2' }, key('enter'))).toMatchObject({ run: 'undo', args: 'Batch 2' });
    const bad = promptKey(base, { kind: 'command', text: 'nope' }, key('enter'));
    expect(bad).toMatchObject({ change: { prompt: null, message: { tone: 'warn' } } });
  });
});

describe('planDetail', () => {
  it('opens the cell under the cursor and reads its file, or notes there is none', () => {
    const rows = base.ws.units.length;
    expect(rows).toBeGreaterThan(0);
    const at = (col: number) => planDetail({ ...base, view: 'progress', cell: { row: 0, col }, picked: { ...base.picked, progress: null } });
    const cells = base.ws.cells.filter((c) => c.unit === base.ws.units[0]);
    const present = cells.findIndex((c) => c.exists);
    expect(present).toBeGreaterThanOrEqual(0);
    const d = at(present);
    expect('detail' in d && d.path).toBe(cells[present].path);
    expect('detail' in d && d.detail).toMatchObject({ unit: base.ws.units[0], loading: true, note: null });
    expect(planDetail({ ...base, filter: 'no row matches this', cell: { row: 0, col: 0 }, picked: { ...base.picked, progress: null } })).toEqual({
      change: { message: { text: 'no cell here (the filter hides every row?)', tone: 'warn' } },
    });
  });
});
