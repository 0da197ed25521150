import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { storeKit } from '../../../src/ui/store/kit.js';
import { partialItems } from '../../../src/ui/store/select.js';
import { closeStores, openStore, STAMP, type StoreRoom } from '../../helpers/store.js';
import { copyDemo, doneFile, writeFiles } from '../../helpers/workspace.js';

// What every disk action of the store shares (src/ui/store/kit.ts, issue 9 item 3): one
// action in flight holds `busy` and every other writing key back; an error is a sanitized
// message and releases `busy`, never a crash; the workspace is rescanned afterwards.

afterEach(closeStores);

async function pickAlmost(r: StoreRoom) {
  const items = partialItems(r.s().ws, '', []);
  const i = items.findIndex((x) => x.file.verdict === 'almost_certainly_partial');
  await r.press('2', 'g', ...Array(i).fill('j'));
  return items[i].file;
}

describe('store: one disk action at a time', () => {
  it('a writing key while another action plans is refused with what is busy', async () => {
    const r = await openStore(copyDemo());
    await pickAlmost(r);
    r.burst('b', 'c');
    expect(r.s().busy).toBe('planning');
    expect(r.s().message).toEqual({ text: 'busy: planning; try again when it is done', tone: 'warn' });
    await r.s().idle();
    expect(r.s().busy).toBeNull();
    expect(r.s().dialog?.title).toMatch(/^Back up /);
  });

  it('a failing action says why and releases busy; the files stay as they were', async () => {
    const r = await openStore(copyDemo());
    const f = await pickAlmost(r);
    await r.press('b', 'y');
    // The backup vanishes behind the store's back: undo cannot move it back.
    rmSync(join(r.root, `${f.path}.bak.${STAMP}`));
    await r.press('u', 'y');
    expect(r.s().busy).toBeNull();
    expect(r.s().message?.tone).toBe('fail');
    expect(r.s().message?.text).toContain(`${f.path}.bak.${STAMP}`);
    expect(existsSync(join(r.root, f.path))).toBe(false);
    // Nothing is stuck: the next action runs.
    await r.press('4', 'w');
    expect(r.s().dialog?.pending.type).toBe('checkpoint');
  });
});

describe('store: the kit', () => {
  it('act holds busy until the work ends and turns an error into a sanitized fail message', async () => {
    const r = await openStore(copyDemo());
    const kit = storeKit({ set: r.store.setState, get: r.store.getState, track: (p) => void p });
    let release!: () => void;
    const gate = new Promise<void>((res) => (release = res));
    let done!: Promise<void>;
    kit.act('writing', () => (done = gate.then(() => Promise.reject(new Error('disk said \u001b]0;owned\u0007 no')))));
    expect(r.s().busy).toBe('writing');
    release();
    await done.catch(() => undefined);
    await new Promise((res) => setImmediate(res));
    expect(r.s().busy).toBeNull();
    expect(r.s().message).toEqual({ text: 'disk said \\e]0;owned\\a no', tone: 'fail' });
  });

  it('fail alone leaves busy to the action that set it; say is verbatim, sayClean escapes', async () => {
    const r = await openStore(copyDemo());
    const kit = storeKit({ set: r.store.setState, get: r.store.getState, track: (p) => void p });
    r.store.setState({ busy: 'backing up' });
    kit.fail(new Error('refused'));
    expect(r.s().busy).toBe('backing up');
    expect(r.s().message).toEqual({ text: 'refused', tone: 'fail' });
    kit.say('plain words', 'ok');
    expect(r.s().message).toEqual({ text: 'plain words', tone: 'ok' });
    kit.sayClean('ch01\r\nresearch', 'warn');
    expect(r.s().message).toEqual({ text: 'ch01\\r\\nresearch', tone: 'warn' });
  });

  it("apply makes a planner's decision so: a sanitized message, a dated dialog, a change; settle hands on its go", async () => {
    const r = await openStore(copyDemo());
    const kit = storeKit({ set: r.store.setState, get: r.store.getState, track: (p) => void p });
    kit.apply({ say: 'drafts/\u001b[2Jch01.md', tone: 'warn' }, 0);
    expect(r.s().message).toEqual({ text: 'drafts/\\e[2Jch01.md', tone: 'warn' });
    const pending = { type: 'undo' as const, group: { id: 'g', label: 'l', moves: [] } };
    kit.apply({ ask: { title: 'Undo: l', lines: ['a → b'], pending } }, new Date(5_000));
    expect(r.s().dialog).toEqual({ title: 'Undo: l', lines: ['a → b'], pending, at: 5_000 });
    kit.apply({ change: { dialog: null, filter: 'ch0' } }, 0);
    expect(r.s()).toMatchObject({ dialog: null, filter: 'ch0' });
    let notified = 0;
    const stop = r.store.subscribe(() => notified++);
    kit.apply({ change: {} }, 0);
    stop();
    expect(notified).toBe(0);
    expect(kit.settle({ go: 42 }, 0)).toBe(42);
    expect(kit.settle({ say: 'no', tone: 'info' }, 0)).toBeNull();
    expect(r.s().message).toEqual({ text: 'no', tone: 'info' });
  });
});

describe('store: the disk decides what is shown', () => {
  it('r rescans: a file written behind the store shows up, with the time of the rescan', async () => {
    const r = await openStore(copyDemo());
    const cell = r.s().ws.cells.find((c) => !c.exists && c.step === 'research')!;
    writeFiles(r.root, Object.fromEntries([doneFile(cell.unit, 'research')]));
    expect(r.s().ws.cells.find((c) => c.unit === cell.unit && c.step === 'research')?.status).toBe(cell.status);
    await r.press('r');
    expect(r.s().ws.cells.find((c) => c.unit === cell.unit && c.step === 'research')?.status).toBe('done');
    expect(r.s().message?.text).toMatch(/^rescanned at \d\d:\d\d:\d\d$/);
    expect(r.s().busy).toBeNull();
  });
});
