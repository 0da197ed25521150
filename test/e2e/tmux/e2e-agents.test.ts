import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../../src/pipeline/config/config.js';
import { parseCheckpoint } from '../../../src/checkpoint/parse.js';
import { claimsOf } from '../../../src/state/derive.js';
import { readJournal } from '../../../src/run/journal/journal.js';
import { copyDemo, REPO } from '../../helpers/workspace.js';
import { hasTmux, TmuxSession } from '../../helpers/tmux.js';

// Launching an agent from the Plan view of the real built binary in a real terminal (tmux
// 80×24), on a copy of the demo workspace whose checkroom.yaml runs the fake agent (fast:
// CHECKROOM_FAKE_SPEED). ch03 r2 is the demo's rate-limited review: it fails twice, is
// retried with backoff (and waits out the reviewer breaker), then succeeds. Screen and disk
// are both checked; quitting restores the terminal.

// The real binary, as `npm install` links it (package.json "bin": the bundle).
const CLI = join(REPO, JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).bin.checkroom);
const tmuxMissing = !hasTmux();
if (tmuxMissing) console.warn('e2e-agents: SKIPPED — tmux is not installed (apt-get install tmux); CI installs it');

const claimOf = async (root: string, key: string) => {
  const cfg = await loadConfig(root);
  return claimsOf(parseCheckpoint(readFileSync(join(root, 'checkpoint.md'), 'utf8'), cfg.pipeline)).get(key);
};
const ticks = (row: string) => (row.match(/✅/g) ?? []).length;
const rowOf = (screen: string, unit: string) => screen.split('\n').find((l) => new RegExp(`^[ ›]${unit} `).test(l)) ?? '';

describe.skipIf(tmuxMissing)('launching agents end to end (tmux 80×24)', () => {
  const sessions: TmuxSession[] = [];
  afterAll(() => sessions.forEach((s) => s.kill()));

  it('confirms the command, launches ch03 r2 from the Plan, retries it, shows ✅ on screen and on disk, quits cleanly', { timeout: 150_000 }, async () => {
    expect(existsSync(CLI), 'run `npm run build` first').toBe(true);
    const dir = copyDemo();
    expect(await claimOf(dir, 'ch03/r2')).not.toBe('done');
    const t = new TmuxSession(`sh -c 'node ${CLI} ${dir}; echo EXITED-$?; sleep 600'`, { env: { CHECKROOM_FAKE_SPEED: '20' } });
    sessions.push(t);

    const first = await t.waitFor(/^auto off · live: /m);
    expect(first.split('\n')[0]).toContain('checkroom ·');
    // Only ch03 in view: its matrix row before the launch.
    t.keys('/', 'ch03', 'Enter');
    const before = ticks(rowOf(await t.waitFor(/^[ ›]ch03 /m), 'ch03'));

    t.keys('3');
    await t.waitFor(/› P1 ch03 r2\s+retry/);
    t.keys('Enter');
    const confirm = await t.waitFor('Confirm: Launch ch03 r2: the exact command');
    expect(confirm.replace(/\s+/g, '')).toContain('agents/fake-agent.mjs--unitch03--stepr2');
    t.keys('y');
    // In flight, listed first; its intermediate failures show as retrying, not as alarms.
    await t.waitFor(/ch03 r2\s+(running|retrying)/);
    const t0 = Date.now();
    while ((await claimOf(dir, 'ch03/r2')) !== 'done' && Date.now() - t0 < 90_000) await new Promise((r) => setTimeout(r, 200));
    expect(await claimOf(dir, 'ch03/r2')).toBe('done');
    await t.waitFor('ch03 r2: done');
    const exits = (await readJournal(dir)).events.filter((e) => e.type === 'exit' && e.unit === 'ch03' && e.step === 'r2');
    expect(exits.map((e) => (e.type === 'exit' ? e.class : ''))).toEqual(['RATE_LIMITED', 'RATE_LIMITED', 'SUCCESS']);
    expect(readFileSync(join(dir, 'reviews/ch03-r2-consistency.md'), 'utf8').trimEnd().split('\n').pop()).toBe('<!-- R2_CONSISTENCY_REVIEW_COMPLETE -->');

    // The matrix: one more ✅ in ch03's row.
    t.keys('1');
    await t.waitFor(() => ticks(rowOf(t.capture(), 'ch03')) === before + 1, 30_000);

    // Quit: nothing in flight, so no question; exit 0, main screen back.
    t.keys('q');
    // The recovery UI may offer to rewrite a stale RESUME.md first: n just quits.
    const asked = await t.waitFor(/EXITED-0|write RESUME\.md first\?/);
    if (!asked.includes('EXITED-0')) t.keys('n');
    const after = await t.waitFor('EXITED-0');
    expect(after).not.toContain('checkroom ·');
    expect(t.alternateOn()).toBe(false);
  });
});
