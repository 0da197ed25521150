import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { doneFile, pathOf, REPO, tempDir, writeFakeAgentWs } from '../helpers/workspace.js';
import { exitEv, factsEv, HOUR, launchEv, MIN, writeJournal } from '../helpers/history-journal.js';
import type { JournalEvent, NewJournalEvent } from '../../src/run/journal/journal.js';
import { parseJournal } from '../../src/run/journal/journal.js';
import { bulkRecordOf } from '../../src/bulk/apply.js';

// `checkroom redrive` through the built binary (docs/redrive.md): the preview without --yes,
// one named record with it, the relaunch of exactly the filtered set, and the undo.

const BIN = join(REPO, 'dist/bundle/checkroom.js');
const run = (args: string[]) => spawnSync('node', [BIN, ...args], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', TZ: 'UTC' }, input: '', timeout: 120_000 });
const UNITS = ['ch01', 'ch02', 'ch03', 'ch04', 'ch05'];
const NOW = Date.now();
/** `2026-12-02T02:00` in UTC (the child's TZ), `h` hours back. */
const iso = (hoursBack: number): string => new Date(NOW - hoursBack * HOUR).toISOString().slice(0, 16);

const failed = (id: string, unit: string, cls: string, hoursBack: number): NewJournalEvent[] => [
  launchEv(id, NOW - hoursBack * HOUR - MIN, unit, 'draft'),
  exitEv(id, NOW - hoursBack * HOUR, unit, 'draft', cls, MIN),
  factsEv(id, NOW - hoursBack * HOUR, unit, 'draft', 0.25),
];

function incident(): string {
  const root = tempDir('checkroom-redrive-cli-');
  writeFakeAgentWs(root, { units: UNITS, speed: 40, files: Object.fromEntries([...UNITS.map((u) => doneFile(u, 'research')), doneFile('ch04', 'draft')]) });
  writeJournal(root, [
    ...failed('a', 'ch01', 'RATE_LIMITED', 5),
    ...failed('b', 'ch02', 'RATE_LIMITED', 8), // before the window
    ...failed('c', 'ch03', 'INFRA', 5), // another class
    ...failed('d', 'ch04', 'RATE_LIMITED', 5), // has its marker since
    ...failed('e', 'ch05', 'RATE_LIMITED', 4.5),
  ]);
  return root;
}
const journal = (root: string): JournalEvent[] => parseJournal(readFileSync(join(root, '.checkroom', 'journal.jsonl'), 'utf8')).events;
const filter = () => ['class=RATE_LIMITED', `from=${iso(6)}`, `to=${iso(4)}`];

describe('checkroom redrive', () => {
  it('without --yes: the preview (count, cost, left out with why) and nothing written', () => {
    const root = incident();
    const r = run(['redrive', root, ...filter(), '--name', 'rate-limit-0200']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('rate-limit-0200: relaunch (through the launch gate: caps, breakers, budgets) 2 cells');
    expect(r.stdout).toContain('expected cost $0.50');
    expect(r.stdout).toMatch(/ {2}ch01\/draft {2}failed RATE_LIMITED \d\d:\d\d {2}writer@local/);
    expect(r.stdout).toContain('  ch04/draft  has its marker: never redone');
    expect(r.stdout).toContain('nothing done yet: add --yes to relaunch these 2 cells as rate-limit-0200');
    expect(journal(root).some((e) => e.type === 'bulk_action')).toBe(false);
    const j = JSON.parse(run(['redrive', root, ...filter(), '--json']).stdout) as { version: number; done: boolean; preview: { count: number; costUsd: number; excluded: { unit: string; why: string }[] } };
    expect(j.version).toBe(1);
    expect(j.done).toBe(false);
    expect(j.preview.count).toBe(2);
    expect(j.preview.costUsd).toBeCloseTo(0.5, 6);
    expect(j.preview.excluded).toEqual([{ unit: 'ch04', step: 'draft', status: 'done', why: 'has its marker: never redone' }]);
  });

  it('--yes: one named record, then exactly the filtered set relaunched to its marker, nothing with a marker', () => {
    const root = incident();
    const r = run(['redrive', root, ...filter(), '--action', 'relaunch', '--name', 'rate-limit-0200', '--yes']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('rate-limit-0200: relaunch 2 cells, one journal record (undo: checkroom redrive --undo rate-limit-0200 --yes)');
    const events = journal(root);
    const at = events.findIndex((e) => e.type === 'bulk_action');
    expect(events.filter((e) => e.type === 'bulk_action')).toHaveLength(1);
    expect(events[at]).toMatchObject({ name: 'rate-limit-0200', action: 'relaunch', cells: [{ unit: 'ch01', step: 'draft' }, { unit: 'ch05', step: 'draft' }] });
    const launched = events.slice(at).flatMap((e) => (e.type === 'launch' ? [`${e.unit}/${e.step}`] : []));
    expect(launched.sort()).toEqual(['ch01/draft', 'ch05/draft']);
    for (const u of ['ch01', 'ch05']) expect(readFileSync(join(root, pathOf(u, 'draft')), 'utf8')).toMatch(/<!-- DRAFT_COMPLETE -->\s*$/);
    // It shows in History with its name.
    expect(run(['history', root]).stdout).toContain(`operator: rate-limit-0200: relaunch 2 cells (class=RATE_LIMITED from=${iso(6)} to=${iso(4)})`);
  });

  it('hold, then --undo by name: released, one more record; a second undo says it was undone', () => {
    const root = incident();
    expect(run(['redrive', root, ...filter(), '--action', 'hold', '--name', 'hold-night', '--yes']).status).toBe(0);
    // The built binary's status says the hold, as the header does (docs/redrive.md, Where it shows).
    // Twice: the second answer may come from the status cache, which the undo below must not outlive.
    for (let i = 0; i < 2; i++) expect(JSON.parse(run(['status', root, '--json']).stdout).queues).toMatchObject({ words: 'redrive hold-night: 2 held', held: 2, redrives: [{ name: 'hold-night', actions: ['hold'], held: 2 }] });
    expect(run(['status', root]).stdout).toContain('redrive hold-night: 2 held\n');
    const u = run(['redrive', root, '--undo', 'hold-night', '--yes']);
    expect(u.stdout).toBe('undid hold-night: 2 cells released\n');
    expect(JSON.parse(run(['status', root, '--json']).stdout).queues).toBeNull();
    expect(journal(root).filter((e) => e.type === 'bulk_undo')).toHaveLength(1);
    const again = run(['redrive', root, '--undo', 'hold-night', '--yes', '--json']);
    expect(again.status).toBe(1);
    expect(JSON.parse(again.stdout)).toEqual({ version: 1, error: 'hold-night was undone already' });
  });

  it('--drain --yes launches a queue a relaunch left (written before a restart), nothing else', () => {
    const root = incident();
    const rec = bulkRecordOf({ action: 'relaunch', name: 'left-over', filter: 'class=RATE_LIMITED', cells: [{ unit: 'ch05', step: 'draft' }] }, NOW);
    writeFileSync(join(root, '.checkroom', 'journal.jsonl'), `${JSON.stringify({ ...rec, v: 1 })}\n`, { flag: 'a' });
    const r = run(['redrive', root, '--drain', '--yes']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('relaunch queue: 1 started, now empty');
    const events = journal(root);
    expect(events.slice(events.findIndex((e) => e.type === 'bulk_action')).flatMap((e) => (e.type === 'launch' ? [e.unit] : []))).toEqual(['ch05']);
    expect(run(['redrive', root, '--drain']).stderr).toContain('redrive --drain launches agents: add --yes');
  });

  it('a bad term exits 2 with what to write', () => {
    const root = incident();
    const r = run(['redrive', root, 'clas=RATE_LIMITED']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('checkroom: redrive: "clas=RATE_LIMITED" is not a filter term: write key=value with key one of status, class');
  });
});
