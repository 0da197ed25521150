import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { doneFile, pathOf, tempDir, writeFakeAgentWs } from '../../../helpers/workspace.js';
import { exitEv, factsEv, launchEv, MIN, writeJournal } from '../../../helpers/history-journal.js';
import { settle } from '../../../helpers/writer.js';
import type { JournalEvent, NewJournalEvent } from '../../../../src/run/journal/journal.js';
import { readJournal } from '../../../../src/run/journal/journal.js';
import { loadConfig } from '../../../../src/pipeline/config/config.js';
import { openSupervisor, type Supervisor } from '../../../../src/run/supervisor/supervisor.js';
import { readRedrive } from '../../../../src/bulk/read.js';
import type { DrainOutcome } from '../../../../src/run/supervisor/redrive.js';

// A bulk redrive with real agents (docs/redrive.md): failures of several classes at several
// times in a journal written as the supervisor writes it; relaunching the filtered set launches
// exactly it, through the launch gate and the agents' concurrency, and nothing with a marker.

const UNITS = ['ch01', 'ch02', 'ch03', 'ch04', 'ch05', 'ch06'];
const at = (h: number, m: number): number => new Date(2026, 11, 2, h, m).getTime();
const NOW = at(9, 30);

const sups: Supervisor[] = [];
afterEach(async () => {
  for (const s of sups.splice(0)) await s.close({ cancel: true });
});

const failed = (id: string, unit: string, cls: string, h: number, m: number): NewJournalEvent[] => [
  launchEv(id, at(h, m) - MIN, unit, 'draft'),
  exitEv(id, at(h, m), unit, 'draft', cls, MIN),
  factsEv(id, at(h, m), unit, 'draft', 0.5),
];

async function incident(): Promise<{ root: string; sup: Supervisor }> {
  const root = tempDir('checkroom-redrive-run-');
  writeFakeAgentWs(root, {
    units: UNITS,
    speed: 40,
    concurrency: 1,
    files: Object.fromEntries([...UNITS.map((u) => doneFile(u, 'research')), doneFile('ch04', 'draft')]),
  });
  writeJournal(root, [
    { type: 'session', at: at(0, 0), kind: 'start', pid: 11 },
    { type: 'session', at: at(0, 1), kind: 'stop', pid: 11, reason: 'quit' },
    ...failed('a', 'ch01', 'RATE_LIMITED', 2, 30),
    ...failed('b', 'ch02', 'RATE_LIMITED', 1, 30),
    ...failed('c', 'ch03', 'INFRA', 3, 0),
    ...failed('d', 'ch04', 'RATE_LIMITED', 3, 10),
    launchEv('d2', at(3, 20), 'ch04', 'draft', 2),
    exitEv('d2', at(3, 40), 'ch04', 'draft', 'SUCCESS', 20 * MIN),
    ...failed('e', 'ch05', 'RATE_LIMITED', 3, 30),
    { type: 'escalate', at: at(3, 30), unit: 'ch05', step: 'draft', class: 'RATE_LIMITED', reason: 'RATE_LIMITED: cap reached' },
    ...failed('f', 'ch06', 'CONTEXT_EXHAUSTED', 3, 45),
  ]);
  settle(root);
  const sup = await openSupervisor({ root, config: await loadConfig(root) });
  sups.push(sup);
  return { root, sup };
}

/** What the journal says happened after the named record: launches by cell, in order. */
const after = async (root: string, id: string): Promise<JournalEvent[]> => {
  const { events } = await readJournal(root);
  return events.slice(events.findIndex((e) => e.type === 'bulk_action' && e.id === id) + 1);
};
const launched = (events: JournalEvent[]): string[] => events.flatMap((e) => (e.type === 'launch' ? [`${e.unit}/${e.step}`] : []));

describe('redrive relaunch with real agents', () => {
  it('class and window: relaunches exactly the filtered set, one at a time, and nothing with a marker', async () => {
    const { root, sup } = await incident();
    const { preview } = await readRedrive(root, 'class=RATE_LIMITED from=02:00 to=04:00 name=rate-limit-0200', NOW);
    expect(preview.cells.map((c) => c.key)).toEqual(['ch01/draft', 'ch05/draft']);
    const out = await sup.redrive({ action: 'relaunch', name: preview.name, filter: preview.filter, cells: preview.cells });
    expect(out.record.name).toBe('rate-limit-0200');
    expect(out.started).toEqual(['ch01/draft']); // concurrency 1: ch05 waits for the slot
    await out.runs;
    const events = await after(root, out.record.id);
    expect(launched(events).sort()).toEqual(['ch01/draft', 'ch05/draft']);
    // The second started only after the first exited: the agent's concurrency held.
    const launches = events.flatMap((e, i) => (e.type === 'launch' ? [i] : []));
    expect(launches[1]).toBeGreaterThan(events.findIndex((e) => e.type === 'exit'));
    for (const u of ['ch01', 'ch05']) expect(readFileSync(join(root, pathOf(u, 'draft')), 'utf8')).toMatch(/<!-- DRAFT_COMPLETE -->\s*$/);
    expect(sup.snapshot().ledger.bulk.queue).toEqual({});
    // The escalated cell was counted anew by the record: relaunched without a separate reset.
    expect(sup.snapshot().ledger.cells['ch05/draft'].state).toBe('done');
  });

  it('a set handed in with a cell that has its marker: that cell is refused with why, the others go', async () => {
    const { root, sup } = await incident();
    const out = await sup.redrive({ action: 'relaunch', name: 'marked', filter: 'marked', cells: [{ unit: 'ch04', step: 'draft' }, { unit: 'ch06', step: 'draft' }] });
    expect(out.refused).toEqual([{ key: 'ch04/draft', why: 'has its marker: never redone' }]);
    await out.runs;
    expect(launched(await after(root, out.record.id))).toEqual(['ch06/draft']);
  });

  it("the gate decides: a held breaker refuses every launch; the cells stay queued and undo unqueues them with their counts back", async () => {
    const { root, sup } = await incident();
    await sup.holdBreaker('writer');
    const out = await sup.redrive({ action: 'relaunch', name: 'held-gate', filter: 'class=RATE_LIMITED', cells: [{ unit: 'ch01', step: 'draft' }, { unit: 'ch05', step: 'draft' }] });
    expect(out.started).toEqual([]);
    expect(out.refused.map((r) => [r.key, r.why])).toEqual([
      ['ch01/draft', expect.stringMatching(/breaker writer/)],
      ['ch05/draft', expect.stringMatching(/breaker writer/)],
    ]);
    expect(Object.keys(sup.snapshot().ledger.bulk.queue)).toEqual(['ch01/draft', 'ch05/draft']);
    const undo = await sup.undoRedrive('held-gate');
    expect(undo.back).toEqual(['ch01/draft', 'ch05/draft']);
    const l = sup.snapshot().ledger;
    expect(l.bulk.queue).toEqual({});
    expect(l.cells['ch05/draft'].state).toBe('needs_human');
    expect(l.cells['ch01/draft'].attempts.length).toBe(1);
    expect(launched(await after(root, out.record.id))).toEqual([]);
  });
});

describe('a relaunch queue across a restart', () => {
  it('a queue the gate refused survives the quit; the next supervisor drains it through the gate', async () => {
    const { root, sup } = await incident();
    await sup.holdBreaker('writer');
    const out = await sup.redrive({ action: 'relaunch', name: 'after-restart', filter: 'class=RATE_LIMITED', cells: [{ unit: 'ch01', step: 'draft' }, { unit: 'ch05', step: 'draft' }] });
    expect(out.started).toEqual([]);
    await sup.close();
    sups.splice(sups.indexOf(sup), 1);
    const next = await openSupervisor({ root, config: await loadConfig(root) });
    sups.push(next);
    expect(Object.keys(next.snapshot().ledger.bulk.queue)).toEqual(['ch01/draft', 'ch05/draft']);
    await next.releaseBreaker('writer');
    const d: DrainOutcome = await next.drainRedrive();
    expect(d.started).toEqual(['ch01/draft']);
    await d.runs;
    expect(launched(await after(root, out.record.id)).sort()).toEqual(['ch01/draft', 'ch05/draft']);
    expect(next.snapshot().ledger.bulk.queue).toEqual({});
  });
});
