import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { doneFile, pathOf, tempDir, writeFakeAgentWs } from '../../helpers/workspace.js';
import { exitEv, factsEv, launchEv, MIN, writeJournal } from '../../helpers/history-journal.js';
import { holdOpen, killWriters, settle } from '../../helpers/writer.js';
import type { NewJournalEvent } from '../../../src/run/journal/journal.js';
import { readRedrive } from '../../../src/bulk/read.js';
import { previewLines } from '../../../src/bulk/preview.js';
import { BulkFilterError } from '../../../src/bulk/filter.js';

// The redrive's selection and preview on real files (docs/redrive.md): failures of several
// classes at several times in a journal written as the supervisor writes it; the filter names
// exactly the cells that hit the class in the window, and lists apart, with why, those that have
// their marker, are running, or are being written.

const UNITS = Array.from({ length: 10 }, (_, i) => `ch${String(i + 1).padStart(2, '0')}`);
const NOW = new Date(2026, 11, 2, 9, 30).getTime();
const at = (h: number, m: number): number => new Date(2026, 11, 2, h, m).getTime();

afterEach(() => killWriters());

/** One failed draft at a clock time, with its spend. */
const failed = (id: string, unit: string, cls: string, h: number, m: number, attempt = 1): NewJournalEvent[] => [
  launchEv(id, at(h, m) - MIN, unit, 'draft', attempt),
  exitEv(id, at(h, m), unit, 'draft', cls, MIN),
  factsEv(id, at(h, m), unit, 'draft', 0.5),
];
const succeeded = (id: string, unit: string, h: number, m: number, mins: number): NewJournalEvent[] => [
  launchEv(id, at(h, m) - mins * MIN, unit, 'draft'),
  exitEv(id, at(h, m), unit, 'draft', 'SUCCESS', mins * MIN),
  factsEv(id, at(h, m), unit, 'draft', 0.5),
];

function incident(): string {
  const root = tempDir('checkroom-redrive-select-');
  writeFakeAgentWs(root, {
    units: UNITS,
    files: Object.fromEntries([doneFile('ch04', 'draft'), [pathOf('ch07', 'draft'), '# ch07 draft\n\nhalf of it']]),
  });
  writeJournal(root, [
    { type: 'session', at: at(0, 0), kind: 'start', pid: 11 },
    ...failed('a', 'ch01', 'RATE_LIMITED', 2, 30),
    ...failed('b', 'ch02', 'RATE_LIMITED', 1, 30), // before the window
    ...failed('c', 'ch03', 'INFRA', 3, 0), // another class
    ...failed('d', 'ch04', 'RATE_LIMITED', 3, 10),
    ...succeeded('d2', 'ch04', 3, 40, 20), // its marker is on disk now
    ...failed('e', 'ch05', 'RATE_LIMITED', 3, 30),
    { type: 'escalate', at: at(3, 30), unit: 'ch05', step: 'draft', class: 'RATE_LIMITED', reason: 'RATE_LIMITED: cap reached' },
    ...failed('f', 'ch06', 'RATE_LIMITED', 3, 50),
    launchEv('f2', at(3, 55), 'ch06', 'draft', 2), // running now
    ...failed('g', 'ch07', 'RATE_LIMITED', 3, 20), // being written by someone
    ...succeeded('h', 'ch08', 5, 0, 10),
    ...succeeded('i', 'ch09', 5, 30, 30),
  ]);
  settle(root);
  return root;
}

describe('readRedrive: class and time window', () => {
  it('selects exactly the cells that hit the class in the window; the marker, the run and the writer are left out with why', async () => {
    const root = incident();
    const w = await holdOpen(join(root, pathOf('ch07', 'draft')));
    const { preview: p } = await readRedrive(root, 'class=RATE_LIMITED from=02:00 to=04:00 name=rate-limit-0200', NOW);
    expect(p.cells.map((c) => [c.key, c.status, c.lastFailure?.class])).toEqual([
      ['ch01/draft', 'failed', 'RATE_LIMITED'],
      ['ch05/draft', 'escalated', 'RATE_LIMITED'],
    ]);
    expect(p.excluded.map((c) => [c.key, c.why.replace(/pid \d+/, 'pid N')])).toEqual([
      ['ch04/draft', 'has its marker: never redone'],
      ['ch06/draft', 'running now'],
      ['ch07/draft', expect.stringMatching(/^being written: drafts\/ch07-draft\.md is being written by pid N \(sh\)/)],
    ]);
    expect(p.name).toBe('rate-limit-0200');
    expect(p.filter).toBe('class=RATE_LIMITED from=02:00 to=04:00');
    await w.finish('');
  });

  it("the preview's count and expected cost: each draft's mean spend and median run", async () => {
    const root = incident();
    const { preview: p } = await readRedrive(root, 'class=RATE_LIMITED from=02:00 to=04:00', NOW);
    // Nobody writes ch07 now: it is named too. Every draft attempt reported $0.50: three cells,
    // $1.50. Draft runs of 20, 10 and 30 min: a median of 20, three times.
    expect(p.cells.length).toBe(3);
    expect(p.costUsd).toBeCloseTo(1.5, 6);
    expect(p.runMs).toBe(60 * MIN);
    const lines = previewLines(p);
    expect(lines[0]).toBe('relaunch-0930: relaunch (through the launch gate: caps, breakers, budgets) 3 cells');
    expect(lines).toContain('expected cost $1.50 · agent time 1h00m');
    expect(lines).toContain('  ch01/draft  failed RATE_LIMITED 02:30  writer@local');
    expect(lines).toContain('left out: 2 cells');
  });

  it('since=, units=, status= and agent= narrow the same journal', async () => {
    const root = incident();
    const ids = async (text: string) => (await readRedrive(root, text, NOW)).preview.cells.map((c) => c.key);
    expect(await ids('class=RATE_LIMITED since=7h')).toEqual(['ch01/draft', 'ch05/draft', 'ch07/draft']);
    expect(await ids('class=RATE_LIMITED,INFRA units=ch02..ch03')).toEqual(['ch02/draft', 'ch03/draft']);
    expect(await ids('status=escalated')).toEqual(['ch05/draft']);
    expect(await ids('agent=reviewer class=RATE_LIMITED')).toEqual([]);
    expect(await ids('step=draft executor=local status=failed')).toEqual(['ch01/draft', 'ch02/draft', 'ch03/draft', 'ch07/draft']);
  });

  it('a unit the workspace does not have is an error, not an empty set', async () => {
    const root = incident();
    await expect(readRedrive(root, 'units=ch03..ch99', NOW)).rejects.toThrow(BulkFilterError);
    await expect(readRedrive(root, 'units=ch03..ch99', NOW)).rejects.toThrow('unit ch99 is not in this workspace: its units run ch01..ch10');
  });
});
