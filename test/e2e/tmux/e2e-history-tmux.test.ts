import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { copyDemo } from '../../helpers/workspace.js';
import { CLI, hasTmux, tmuxRooms } from '../../helpers/tmux.js';
import { MIN, recordedPast, writeJournal } from '../../helpers/history-journal.js';
import type { NewJournalEvent } from '../../../src/run/journal/journal.js';

// History and time travel in a real terminal (docs/history.md): the built control room at
// 80×24 in tmux on a copy of the demo whose journal records runs over the last three hours.
// History lists them; a moment an hour back shows that moment's matrix; esc returns to now.

const rowOf = (screen: string, unit: string): string => screen.split('\n').find((l) => new RegExp(`^[ ›]${unit} `).test(l)) ?? '';

describe.skipIf(!hasTmux())('History and time travel in tmux (80×24)', () => {
  const { room } = tmuxRooms(afterAll);

  it('opens History after a recorded run, picks a moment an hour back and sees that moment’s matrix', { timeout: 120_000 }, async () => {
    expect(existsSync(CLI), 'run `npm run build` first').toBe(true);
    const dir = copyDemo();
    const now = Date.now();
    // The last session ended cleanly five minutes ago: no recover report covers the screen.
    writeJournal(dir, [...recordedPast(now), { type: 'session', at: now - 5 * MIN, kind: 'stop', pid: 12, reason: 'quit' } as NewJournalEvent]);
    const t = room(dir, { env: { NO_COLOR: '1' } });
    await t.waitFor('[1 Progress]');
    const nowRow = rowOf(await t.waitFor(/^[ ›]ch02 /m), 'ch02');
    expect(nowRow).toMatch(/^[ ›]ch02 B1\s+✅/);

    t.keys('6');
    const history = await t.waitFor(/History: \d+ rows from the journal/);
    expect(history).toMatch(/ch02\/research +run +#1 writer SUCCESS 10 m 00 s \$0\.75/);
    expect(history).toMatch(/ch01\/draft +run +#2 writer SUCCESS 8 m 00 s \$1\.50/);
    expect(history).toMatch(/ch02\/research +escalate +escalated as PERMISSION/);

    // An hour back: ch02's research had been reset after its escalation and not run again yet.
    t.keys(':', 'at 1h', 'Enter');
    await t.waitFor('the past: ');
    t.keys('1');
    const then = await t.waitFor(/^[ ›]ch02 B1\s+--/m);
    expect(then.split('\n').slice(0, 3).join('\n')).toMatch(/the past: \d\d:\d\d:\d\d \(from the journal; \d+ cells not journalled, as now\)/);
    expect(rowOf(then, 'ch01')).toMatch(/^[ ›]ch01 B1\s+\[?✅\]?\s+✅/);

    // A launch key does nothing to the past: it says so.
    t.keys('3', 'Enter');
    await t.waitFor('"launch" is off while looking at the past');

    t.keys('Escape');
    await t.waitFor((): boolean => !t.capture().includes('the past: '));
    t.keys('1');
    await t.waitFor(new RegExp(`^[ ›]ch02 B1\\s+✅`, 'm'));
    // Nothing of the journal was lost or rewritten: the recorded lines are still its first.
    const lines = readFileSync(join(dir, '.checkroom', 'journal.jsonl'), 'utf8').split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(22);
    // Quit, so nothing writes in the workspace while the test's temp directory is removed; the
    // demo's RESUME.md is stale: quitting offers to rewrite it first, n quits without writing.
    t.keys('q');
    await t.waitFor('Quitting: write RESUME.md first?');
    t.keys('n');
    await t.waitFor('EXITED-0');
  });
});
