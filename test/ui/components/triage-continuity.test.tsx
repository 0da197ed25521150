import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLiveWorkspace } from '../../../src/live/live-workspace.js';
import { createAppStore, disposeStore, type AppStore } from '../../../src/ui/store/store.js';
import { COLOR_THEME } from '../../../src/text/theme.js';
import { loadConfig } from '../../../src/pipeline/config/config.js';
import { openSupervisor, type Supervisor } from '../../../src/run/supervisor/supervisor.js';
import { renderRoom, tick, unmountAll } from '../../helpers/ink.js';
import { copyDemo } from '../../helpers/workspace.js';

// Issue 8 item 8: "a redo queue and undo do not survive a restart". The operator queues a
// redo (d), skips a partial (s), quits, and starts the control room again on the same
// workspace: the queue, the skip and the undo of the backup are all still there, read back
// from the journal. Real copies of the demo, a real supervisor (no agent is launched).

const AT = new Date(2026, 10, 30, 5, 12, 0);

async function start(root: string) {
  const config = await loadConfig(root);
  const sup = await openSupervisor({ root, config });
  const live = await createLiveWorkspace(root, { watch: false });
  const store = createAppStore({ live, now: () => AT, agents: { sup, config } });
  const room = await renderRoom(store, live, COLOR_THEME, 24, 80);
  const settle = async () => {
    await tick(30);
    await store.getState().idle();
    await tick(30);
  };
  sessions.push({ sup, store });
  return { ...room, sup, store, settle };
}

const sessions: { sup: Supervisor; store: AppStore }[] = [];
afterEach(async () => {
  await unmountAll();
  for (const s of sessions.splice(0)) {
    disposeStore(s.store);
    await s.sup.close({ cancel: true });
  }
});

describe('triage continuity across restarts', () => {
  it('the redo queue, the skipped list and undo come back after a restart', async () => {
    const root = copyDemo();
    const first = await start(root);
    // Partials: ch02 panel, ch05 draft, ch07 research, ch09 research. Redo ch07, skip ch09.
    await first.press('2', 'j', 'j', 'd');
    await first.settle();
    expect(first.store.getState().dialog?.title).toBe('Redo ch07 research: back up the file and queue the step');
    await first.press('y');
    await first.settle();
    const original = readFileSync(join(root, first.store.getState().undo[0].moves[0].backup), 'utf8');
    await first.press('g', 'j', 'j', 's');
    await first.settle();
    expect(first.store.getState().skipped).toEqual(['research/ch09-research.md']);
    const before = first.store.getState();
    // Quit: the session ends, its store and supervisor go.
    const s = sessions.pop()!;
    await unmountAll();
    disposeStore(s.store);
    await s.sup.close();

    const second = await start(root);
    const after = second.store.getState();
    expect(after.redoQueue).toEqual(before.redoQueue);
    expect(after.redoQueue.map((r) => `${r.unit}/${r.step}`)).toEqual(['ch07/research']);
    expect(after.skipped).toEqual(['research/ch09-research.md']);
    expect(after.undo).toEqual(before.undo);
    await second.press('3');
    expect(second.frame()).toMatch(/Q ch07 research\s+queued redo/);
    // Undo of the previous session's backup: confirmed, the file is back, the queue is empty.
    await second.press('u');
    await second.settle();
    expect(second.store.getState().dialog?.title).toBe('Undo: backup of research/ch07-research.md');
    await second.press('y');
    await second.settle();
    expect(readFileSync(join(root, 'research/ch07-research.md'), 'utf8')).toBe(original);
    expect(second.store.getState().redoQueue).toEqual([]);
    expect(second.store.getState().undo).toEqual([]);

    // And that, too, survives the next restart.
    const t = sessions.pop()!;
    await unmountAll();
    disposeStore(t.store);
    await t.sup.close();
    const third = await start(root);
    expect(third.store.getState().redoQueue).toEqual([]);
    expect(third.store.getState().undo).toEqual([]);
    expect(third.store.getState().skipped).toEqual(['research/ch09-research.md']);
    expect(existsSync(join(root, 'research/ch07-research.md'))).toBe(true);

    // :unskip shows it again, and that is journalled too.
    await third.press(':', ...'unskip', '\r');
    await third.settle();
    expect(third.store.getState().skipped).toEqual([]);
    const u = sessions.pop()!;
    await unmountAll();
    disposeStore(u.store);
    await u.sup.close();
    const fourth = await start(root);
    expect(fourth.store.getState().skipped).toEqual([]);
  });
});
