import { afterEach, describe, expect, it } from 'vitest';
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLiveWorkspace } from '../../../src/live/live-workspace.js';
import { createAppStore } from '../../../src/ui/store/store.js';
import { COLOR_THEME } from '../../../src/text/theme.js';
import { renderRoom, tick, unmountAll } from '../../helpers/ink.js';
import { copyDemo, tempDir, writeFakeAgentWs } from '../../helpers/workspace.js';
import { loadConfig } from '../../../src/pipeline/config/config.js';
import { openSupervisor, type Supervisor } from '../../../src/run/supervisor/supervisor.js';

// Issue 8 item 2: lists reorder live (a partial is finished and leaves, a new unit appears
// above) and a cursor that keeps its index lands on another item. The cursor follows the
// item's key; a key acts on the item the operator saw, or does nothing and says so.

async function mount(dir: string) {
  const live = await createLiveWorkspace(dir, { watch: false });
  const store = createAppStore({ live, now: () => new Date(2026, 10, 30, 5, 12, 0) });
  const room = await renderRoom(store, live, COLOR_THEME, 24, 80);
  /** What the watcher would do: rescan, and hand the store the new state. */
  const rescan = async () => {
    await live.refresh();
    store.getState().setWorkspace(live.state, live.watching);
    await tick();
  };
  const settle = async () => {
    await tick(30);
    await store.getState().idle();
    await tick(30);
  };
  return { ...room, store, rescan, settle };
}

const sups: Supervisor[] = [];
afterEach(async () => {
  await unmountAll();
  for (const s of sups.splice(0)) await s.close({ cancel: true });
});

/** Two chapters with nothing written: the plan offers both research steps; the agent hangs after one section. */
function planWs(): string {
  return writeFakeAgentWs(tempDir('checkroom-select-plan-'), { units: ['ch01', 'ch02'], faults: { '*/*': 'hang' }, speed: 40, idle: '60s', roles: [], tail: [] });
}

describe('selection follows identity', () => {
  it('Partials: the cursor stays on its file when a row above leaves; b backs up that file', async () => {
    const root = copyDemo();
    const m = await mount(root);
    await m.press('2', 'j');
    expect(m.frame()).toMatch(/› truncated\s+\d+\s+drafts\/ch05-draft\.md/);
    // The panel above is finished meanwhile: its row leaves the list.
    appendFileSync(join(root, 'reader-feedback/ch02-panel.md'), '\n<!-- READER_PANEL_COMPLETE -->\n');
    await m.rescan();
    expect(m.frame()).not.toContain('ch02-panel.md');
    expect(m.frame()).toMatch(/› truncated\s+\d+\s+drafts\/ch05-draft\.md/);
    await m.press('b');
    await m.settle();
    expect(m.store.getState().dialog?.title).toBe('Back up drafts/ch05-draft.md');
  });

  it('Partials: when the selected file leaves the list, d does nothing and says so; d again acts on the row shown', async () => {
    const root = copyDemo();
    const m = await mount(root);
    await m.press('2', 'j');
    appendFileSync(join(root, 'drafts/ch05-draft.md'), '\n<!-- DRAFT_COMPLETE -->\n');
    await m.rescan();
    expect(m.frame()).toMatch(/› almost_certainly_partial\s+\d+\s+research\/ch07-research\.md/);
    await m.press('d');
    await m.settle();
    expect(m.store.getState().dialog).toBeNull();
    expect(m.store.getState().message?.text).toBe('drafts/ch05-draft.md left the list: nothing was done (the cursor is on the row now shown)');
    await m.press('d');
    await m.settle();
    expect(m.store.getState().dialog?.title).toBe('Redo ch07 research: back up the file and queue the step');
  });

  it('Progress: a unit appearing above keeps the cursor on its row; enter opens that row', async () => {
    const root = copyDemo();
    const m = await mount(root);
    await m.press('j', 'j');
    expect(m.frame()).toMatch(/›ch03/);
    // A new chapter's first file appears: ch00 sorts above every row.
    writeFileSync(join(root, 'research/ch00-research.md'), '# ch00 research\n\nstarted');
    await m.rescan();
    expect(m.store.getState().ws.units[0]).toBe('ch00');
    expect(m.frame()).toMatch(/›ch03/);
    await m.press('\r');
    expect(m.store.getState().detail?.unit).toBe('ch03');
  });

  it('Plan: a launch elsewhere puts its run on top; enter still acts on the entry the cursor was on', async () => {
    const root = planWs();
    const config = await loadConfig(root);
    const sup = await openSupervisor({ root, config });
    sups.push(sup);
    const live = await createLiveWorkspace(root, { watch: false });
    const store = createAppStore({ live, agents: { sup, config, flushMs: 20 } });
    const room = await renderRoom(store, live, COLOR_THEME, 24, 80);
    await room.press('3');
    expect(room.frame()).toMatch(/› P3 ch01 research/);
    // ch02's research is launched from elsewhere (autopilot, `checkroom run`): its run goes on top.
    const run = sup.launch('ch02', 'research');
    run.catch(() => undefined);
    const t0 = Date.now();
    while (!/ch02 research\s+running/.test(room.frame())) {
      if (Date.now() - t0 > 10_000) throw new Error(`no run shown; frame:\n${room.frame()}`);
      await tick(20);
    }
    expect(room.frame()).toMatch(/› P3 ch01 research/);
    await room.press('\r');
    expect(store.getState().dialog?.title).toBe('Launch ch01 research: the exact command');
  });

  it('Backups panel: a restore adds the current version on top; the cursor stays on the backup it restored', async () => {
    const root = copyDemo();
    const rel = 'drafts/ch05-draft.md';
    writeFileSync(join(root, `${rel}.bak.20261129-100000`), 'old version one\n');
    writeFileSync(join(root, `${rel}.bak.20261129-110000`), 'old version two\n');
    const m = await mount(root);
    await m.press('2', 'j', 'B');
    await m.settle();
    await m.press('j');
    await m.settle();
    const picked = () => {
      const b = m.store.getState().recovery.backups!;
      return b.rows[b.cursor].path;
    };
    expect(picked()).toBe(`${rel}.bak.20261129-100000`);
    await m.press('\r');
    await m.settle();
    await m.press('y');
    await m.settle();
    expect(m.store.getState().recovery.backups!.rows).toHaveLength(3);
    expect(picked()).toBe(`${rel}.bak.20261129-100000`);
  });
});
