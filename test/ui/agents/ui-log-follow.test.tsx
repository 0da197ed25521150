import { afterEach, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, writeSync } from 'node:fs';
import { createLiveWorkspace } from '../../../src/live/live-workspace.js';
import { createAppStore } from '../../../src/ui/store/store.js';
import { NO_COLOR_THEME } from '../../../src/text/theme.js';
import { pickedCell } from '../../../src/ui/pager/slice.js';
import { renderRoom, tick, unmountAll } from '../../helpers/ink.js';
import { copyDemo } from '../../helpers/workspace.js';
import { writeAttempts } from '../../helpers/attempt-logs.js';

// The log pager following a live attempt (docs/logs.md, "The pager"): a real process appends
// to the log while the pager shows it; a live attempt opens in follow mode at its end and
// the new lines arrive; k leaves follow, F takes it back. And a 200 MB log opens at its first
// window: the index has looked at one chunk, not the file.

const children: ChildProcess[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
  await unmountAll();
});

async function mount(lines: string[], live: boolean) {
  const dir = copyDemo();
  const lw = await createLiveWorkspace(dir, { watch: false });
  const store = createAppStore({ live: lw });
  const cell = pickedCell(store.getState());
  if ('why' in cell) throw new Error(cell.why);
  const [w] = writeAttempts(dir, [{ unit: cell.unit, step: cell.step, attempts: [live ? { lines } : { lines, class: 'SUCCESS' }] }]);
  const room = await renderRoom(store, lw, NO_COLOR_THEME, 24, 80);
  const waitFor = async (what: string | RegExp, timeout = 15_000) => {
    const t0 = Date.now();
    while (!(typeof what === 'string' ? room.frame().includes(what) : what.test(room.frame()))) {
      if (Date.now() - t0 > timeout) throw new Error(`timed out waiting for ${String(what)}; frame:\n${room.frame()}`);
      await tick(20);
    }
    return room.frame();
  };
  return { ...room, store, waitFor, log: w!.logPath };
}

describe('the pager follows a live attempt', () => {
  it('opens at the end in follow mode and shows what a real process appends', { timeout: 60_000 }, async () => {
    const m = await mount(['started'], true);
    await m.press('L');
    await m.store.getState().idle();
    await m.waitFor('· follow · events');
    expect(m.frame()).toContain('writer · running');
    // A real writer: one line every 20 ms, 200 lines.
    const writer = spawn('node', ['-e', `const fs=require('fs');let i=0;const t=setInterval(()=>{fs.appendFileSync(${JSON.stringify(m.log)},'tick '+(++i)+'\\n');if(i===200)clearInterval(t)},20)`]);
    children.push(writer);
    const exited = new Promise((r) => writer.on('exit', r));
    await m.waitFor(/^\s*\d+ tick 40$/m, 10_000);
    await m.waitFor(/^\s*\d+ tick 200$/m);
    expect(m.frame()).toMatch(/lines \d+-201 of 201 · follow/);
    await exited;
    // Reading up leaves follow; F comes back to the end.
    await m.press('k');
    expect(m.frame()).not.toContain('· follow');
    await m.press('F');
    await m.waitFor(/lines \d+-201 of 201 · follow/);
  });

  it('a 200 MB log opens at its first window without reading the rest', { timeout: 120_000 }, async () => {
    const m = await mount(['first line'], false);
    const fd = openSync(m.log, 'a');
    const block = Buffer.from(`${'y'.repeat(1023)}\n`.repeat(1024)); // 1 MiB
    for (let i = 0; i < 200; i++) writeSync(fd, block);
    closeSync(fd);
    await m.press('L');
    await m.store.getState().idle();
    const f = await m.waitFor(/^ ?1 first line/m);
    const p = m.store.getState().pager!;
    expect(p.complete).toBe(false);
    expect(p.total).toBeLessThan(5000);
    expect(f).toContain('(indexing on demand)');
    await m.press('G');
    await m.waitFor(`of ${200 * 1024 + 1} `);
    expect(process.memoryUsage().rss).toBeLessThan(1.5 * 1024 ** 3);
  });
});
