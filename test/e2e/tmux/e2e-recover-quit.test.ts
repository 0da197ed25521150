import { afterAll, describe, expect, it } from 'vitest';
import { readJournal } from '../../../src/run/journal/journal.js';
import { copyDemo } from '../../helpers/workspace.js';
import { hasTmux, tmuxRooms } from '../../helpers/tmux.js';

// Issue 8 item 6, in a real terminal: the recover report opened again after a clean quit,
// because the demo mid-flight (half-products, ⏳ claims) looks interrupted on disk. The
// journal's session start/stop decide: after `q` no report; after kill -9 the report.

const sessions = async (dir: string) => (await readJournal(dir)).events.filter((e) => e.type === 'session');
/** Poll until `ok` holds; a generous bound, no timing asserted. */
const until = async (ok: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> => {
  const t0 = Date.now();
  while (!(await ok())) {
    if (Date.now() - t0 > timeoutMs) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
};

describe.skipIf(!hasTmux())('the recover report on start (tmux 80×24)', () => {
  const { room: start } = tmuxRooms(afterAll);

  it('opens after an interruption only: not after q, again after kill -9', { timeout: 120_000 }, async () => {
    const dir = copyDemo();
    const first = start(dir);
    await first.waitFor('The last session was interrupted'); // no journal yet: the demo's own signs
    first.keys('Escape');
    await first.waitFor('[1 Progress]');
    first.keys('q');
    // RESUME.md of the demo is stale: the quit offer asks; n quits without writing.
    await first.waitFor(/EXITED-0|RESUME/);
    if (!first.capture().includes('EXITED-0')) first.keys('n');
    await first.waitFor('EXITED-0');
    expect((await sessions(dir)).map((e) => e.type === 'session' && e.kind)).toEqual(['start', 'stop']);

    const second = start(dir);
    await second.waitFor('[1 Progress]');
    await until(async () => (await sessions(dir)).length === 3);
    await expect(second.waitFor('checkroom recover', 3000)).rejects.toThrow(/timed out/);
    const last = (await sessions(dir)).at(-1)!;
    expect(last.type === 'session' && last.kind).toBe('start');
    // Cut off: the driver dies without journaling its stop.
    process.kill((last as { pid: number }).pid, 'SIGKILL');
    await second.waitFor(/EXITED-/);

    const third = start(dir);
    await third.waitFor('The last session was interrupted');
  });
});
