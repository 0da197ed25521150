import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { doneFile, pathOf, tempDir, writeFakeAgentWs } from '../../helpers/workspace.js';
import { CLI, hasTmux, tmuxRooms } from '../../helpers/tmux.js';
import { exitEv, HOUR, launchEv, MIN, writeJournal } from '../../helpers/history-journal.js';
import { parseJournal, type NewJournalEvent } from '../../../src/run/journal/journal.js';

// :redrive in a real terminal at 80×24 and 120×40 (docs/redrive.md): the built control room on a workspace
// whose journal has a night of rate limits among other failures; the preview is longer than
// the screen and scrolls; y relaunches exactly the filtered cells, never the one with its marker.

const UNITS = Array.from({ length: 14 }, (_, i) => `ch${String(i + 1).padStart(2, '0')}`);
const NOW = Date.now();
const hhmm = (hoursBack: number): string => new Date(NOW - hoursBack * HOUR).toISOString().slice(11, 16);
const failed = (id: string, unit: string, cls: string, hoursBack: number): NewJournalEvent[] => [
  launchEv(id, NOW - hoursBack * HOUR - MIN, unit, 'draft'),
  exitEv(id, NOW - hoursBack * HOUR, unit, 'draft', cls, MIN),
];

describe.skipIf(!hasTmux())(':redrive in tmux (80×24 and 120×40)', () => {
  const { room } = tmuxRooms(afterAll);

  it(':redrive class=RATE_LIMITED from= to= → the preview scrolls → y relaunches exactly the set', { timeout: 180_000 }, async () => {
    expect(existsSync(CLI), 'run `npm run build` first').toBe(true);
    const dir = nightWorkspace();
    const t = room(dir, { env: { NO_COLOR: '1', TZ: 'UTC' } });
    await t.waitFor('[1 Progress]');
    t.keys(':', `redrive class=RATE_LIMITED from=${hhmm(3)} to=${hhmm(1)} name=rate-limit-0200`, 'Enter');
    const preview = await t.waitFor('Confirm: Redrive rate-limit-0200: relaunch 11 cells');
    expect(preview).toMatch(/rows 1-\d+ of \d+ · \d+ more below · j\/k: scroll/);
    expect(preview).toContain('expected cost');
    // The first launch from this checkroom.yaml: the preview shows the exact command, as every launch does.
    t.keys('j', 'j', 'j', 'j', 'j', 'j', 'j', 'j', 'j', 'j', 'j', 'j', 'j', 'j', 'j', 'j');
    await t.waitFor('First launch from this checkroom.yaml: checkroom will run');
    t.keys('k', 'k', 'k', 'k', 'k', 'k', 'k', 'k', 'k', 'k', 'k', 'k', 'k', 'k', 'k', 'k');
    for (const l of preview.split('\n')) expect(l.length).toBeLessThanOrEqual(80);
    // Down to the end of the preview: the cell left out is named with why.
    t.keys('j', 'j', 'j', 'j', 'j', 'j', 'j', 'j', 'j', 'j', 'j', 'j');
    const end = await t.waitFor('ch04/draft  has its marker: never redone');
    expect(end).toContain('y/enter: do it');
    t.keys('y');
    await t.waitFor((): boolean => !t.capture().includes('Confirm: Redrive'));
    // Every relaunched cell reaches its marker; the journal says which were launched.
    const relaunched = UNITS.slice(0, 12).filter((u) => u !== 'ch04');
    await t.waitFor(() => relaunched.every((u) => /<!-- DRAFT_COMPLETE -->\s*$/.test(safeRead(join(dir, pathOf(u, 'draft'))))), 120_000);
    const events = parseJournal(readFileSync(join(dir, '.checkroom', 'journal.jsonl'), 'utf8')).events;
    const at = events.findIndex((e) => e.type === 'bulk_action');
    expect(events[at]).toMatchObject({ name: 'rate-limit-0200', action: 'relaunch' });
    const launched = events.slice(at).flatMap((e) => (e.type === 'launch' ? [e.unit] : []));
    expect(launched.sort()).toEqual(relaunched);
    // History shows the record with its name.
    t.keys('6');
    await t.waitFor(/decision {2}operator: rate-limit-0200: relaunch 11/);
    t.keys('q');
    await t.waitFor((): boolean => /Quitting: write RESUME\.md first\?|EXITED-0/.test(t.capture()));
    if (t.capture().includes('Quitting: write RESUME.md first?')) t.keys('n');
    await t.waitFor('EXITED-0');
  });

  it('120×40: the whole preview fits, the cell with its marker named; n changes nothing', { timeout: 90_000 }, async () => {
    const dir = nightWorkspace();
    const t = room(dir, { cols: 120, rows: 40, env: { NO_COLOR: '1', TZ: 'UTC' } });
    await t.waitFor('[1 Progress]');
    t.keys(':', `redrive class=RATE_LIMITED from=${hhmm(3)} to=${hhmm(1)} name=rate-limit-0200`, 'Enter');
    const preview = await t.waitFor('ch04/draft  has its marker: never redone');
    expect(preview).toContain('Confirm: Redrive rate-limit-0200: relaunch 11 cells');
    expect(preview).not.toContain('j/k: scroll');
    for (const l of preview.split('\n')) expect(l.length).toBeLessThanOrEqual(120);
    t.keys('n');
    await t.waitFor('cancelled: nothing was changed');
    const events = parseJournal(readFileSync(join(dir, '.checkroom', 'journal.jsonl'), 'utf8')).events;
    expect(events.filter((e) => e.type === 'bulk_action' || (e.type === 'launch' && e.at > NOW))).toEqual([]);
    t.keys('q');
    await t.waitFor((): boolean => /Quitting: write RESUME\.md first\?|EXITED-0/.test(t.capture()));
    if (t.capture().includes('Quitting: write RESUME.md first?')) t.keys('n');
    await t.waitFor('EXITED-0');
  });
});

/** A book whose journal has a night of rate limits among other failures: ch01..ch12 hit the
 *  rate limit 2 h ago (ch04 was done since), ch13 an hour before the window, ch14 another class. */
function nightWorkspace(): string {
  const dir = writeFakeAgentWs(tempDir('checkroom-redrive-tmux-'), {
    units: UNITS,
    speed: 40,
    concurrency: 4,
    files: Object.fromEntries([...UNITS.map((u) => doneFile(u, 'research')), doneFile('ch04', 'draft')]),
  });
  const night = UNITS.slice(0, 12).flatMap((u, i) => failed(`n${i}`, u, 'RATE_LIMITED', 2));
  writeJournal(dir, [
    ...night,
    ...failed('early', 'ch13', 'RATE_LIMITED', 5),
    ...failed('infra', 'ch14', 'INFRA', 2),
    { type: 'session', at: NOW - 5 * MIN, kind: 'stop', pid: 12, reason: 'quit' },
  ]);
  return dir;
}

function safeRead(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
