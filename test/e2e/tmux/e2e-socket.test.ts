import { afterAll, describe, expect, it } from 'vitest';
import { appendFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { socketDir, socketPaths } from '../../../src/socket/where.js';
import { copyDemo, tempDir } from '../../helpers/workspace.js';
import { hasTmux, tmuxRooms, CLI } from '../../helpers/tmux.js';

// The control socket of the real control room (issue 10 item 4): the built binary in tmux
// serves it; `checkroom watch --json` and `checkroom status --json` are the built binary too.


/** NDJSON lines of a running `watch`, as they arrive. */
function lines(child: ResultPromise): {
  all: Record<string, unknown>[];
  until(pred: (e: Record<string, unknown>) => boolean, ms?: number): Promise<Record<string, unknown>>;
} {
  const all: Record<string, unknown>[] = [];
  let buf = '';
  child.stdout!.on('data', (c: Buffer) => {
    buf += c.toString('utf8');
    for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
      all.push(JSON.parse(buf.slice(0, nl)));
      buf = buf.slice(nl + 1);
    }
  });
  return {
    all,
    async until(pred, ms = 60_000) {
      const t0 = Date.now();
      for (;;) {
        const hit = all.find(pred);
        if (hit) return hit;
        if (Date.now() - t0 > ms) throw new Error(`no such event; got ${JSON.stringify(all)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
  };
}

describe.skipIf(!hasTmux())('control socket of the real control room (tmux 80x24)', () => {
  const { room } = tmuxRooms(afterAll);

  it('watch streams a cell change on a marker and a run start; status answers from the live state; quit removes the socket', { timeout: 150_000 }, async () => {
    const dir = copyDemo();
    const xdg = tempDir('checkroom-xdg-');
    const env = { ...process.env, XDG_RUNTIME_DIR: xdg };
    const t = room(dir, { env: { XDG_RUNTIME_DIR: xdg, CHECKROOM_FAKE_SPEED: '20' } });
    await t.waitFor(/^auto off · live: /m);
    const paths = socketPaths(dir, socketDir(env));
    expect(existsSync(paths.socket)).toBe(true);

    const watch = execa(process.execPath, [CLI, 'watch', dir, '--json'], { env, reject: false });
    const events = lines(watch);
    const hello = await events.until((e) => e.type === 'hello');
    expect(hello).toMatchObject({ workspace: dir, cells: 100 });

    appendFileSync(join(dir, 'reader-feedback/ch02-panel.md'), '\n\n<!-- READER_PANEL_COMPLETE -->\n');
    expect(await events.until((e) => e.type === 'cell' && e.unit === 'ch02' && e.step === 'panel')).toMatchObject({ from: 'partial', to: 'done' });

    // Launch ch03 r2 from the Plan (only ch03 in view): the run's start reaches the stream.
    t.keys('/', 'ch03', 'Enter');
    await t.waitFor(/^[ ›]ch03 /m);
    t.keys('3');
    await t.waitFor(/› P1 ch03 r2\s+retry/);
    t.keys('Enter');
    await t.waitFor('Confirm: Launch ch03 r2');
    t.keys('y');
    expect(await events.until((e) => e.type === 'run-started')).toMatchObject({ unit: 'ch03', step: 'r2', attempt: 1 });

    const asked = await execa(process.execPath, [CLI, 'status', '--json', dir], { env });
    const cells = JSON.parse(asked.stdout).cells as { unit: string; step: string; status: string }[];
    expect(cells.find((c) => c.unit === 'ch02' && c.step === 'panel')?.status).toBe('done');

    await events.until((e) => e.type === 'run-ended' && e.unit === 'ch03' && e.step === 'r2' && e.outcome === 'done', 120_000);
    t.keys('q');
    const quit = await t.waitFor(/EXITED-0|write RESUME\.md first\?/);
    if (!quit.includes('EXITED-0')) t.keys('n');
    await t.waitFor('EXITED-0');
    // The control room quit: the stream ends (exit 0), its socket and token are gone.
    expect((await watch).exitCode).toBe(0);
    expect(existsSync(paths.socket) || existsSync(paths.token)).toBe(false);
  });
});
