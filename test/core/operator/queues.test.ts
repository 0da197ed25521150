import { describe, expect, it } from 'vitest';
import type { JournalEvent, NewJournalEvent } from '../../../src/run/journal/journal.js';
import { replayJournal } from '../../../src/run/journal/ledger-fold.js';
import { bulkRecordOf } from '../../../src/bulk/apply.js';
import { MAX_BULK } from '../../../src/bulk/events.js';
import { cellQueueMark, cellWait, NO_OPERATOR_QUEUES, queuesLines, queuesOf } from '../../../src/operator/queues.js';
import { buildOperatorModel } from '../../../src/operator/model.js';
import { plainSnapshot } from '../../helpers/snapshot.js';
import { launchEv } from '../../helpers/history-journal.js';
import { loadWorkspace } from '../../../src/workspace.js';
import { copyDemo } from '../../helpers/workspace.js';

// The operator model's queues (src/operator/queues.ts): what still waits on named actions and
// on redo, derived from the journal's fold, the one derivation a room and a scan read.

const cfg = { breaker: { threshold: 9, cooldownMs: 10_000, maxCooldownMs: 60_000 }, limits: { maxLaunches: 99, maxConsecutiveFailures: 99 } };
const v = (e: NewJournalEvent): JournalEvent => ({ ...e, v: 1 }) as JournalEvent;
const cells = (...units: string[]) => units.map((unit) => ({ unit, step: 'draft' }));
const bulk = (action: 'relaunch' | 'reset' | 'skip' | 'hold', name: string, at: number, ...units: string[]) => v(bulkRecordOf({ action, name, filter: 'class=RATE_LIMITED', cells: cells(...units) }, at));
const fold = (events: JournalEvent[]) => replayJournal(events, 10_000, cfg);

describe('queuesOf: the named actions and the redo queue as the operator model has them', () => {
  it('nothing journalled, or only a reset: nothing waits, no words', () => {
    expect(queuesOf(null)).toBe(NO_OPERATOR_QUEUES);
    expect(queuesOf(fold([]))).toBe(NO_OPERATOR_QUEUES);
    expect(queuesOf(fold([bulk('reset', 'r', 100, 'ch01')])).words).toBeNull();
  });

  it('a relaunch and a skip under one name: queued and skipped counted, the cells named, the header words', () => {
    const q = queuesOf(fold([bulk('relaunch', 'rate-limit-0200', 100, 'ch01', 'ch02', 'ch03'), bulk('skip', 'rate-limit-0200', 110, 'ch04')]));
    expect(q.redrives).toEqual([{ name: 'rate-limit-0200', actions: ['relaunch', 'skip'], queued: cells('ch01', 'ch02', 'ch03'), skipped: cells('ch04'), held: [] }]);
    expect(q.totals).toEqual({ queued: 3, skipped: 1, held: 0 });
    expect(q.words).toBe('redrive rate-limit-0200: 3 queued · 1 skipped');
    expect(q.short).toBe('redrive: 3 queued · 1 skipped');
    expect(cellWait(q, 'ch04/draft')).toEqual({ name: 'rate-limit-0200', state: 'skipped' });
  });

  it('launches drain the queue; when all ran, the name is gone and so are the words', () => {
    const events = [bulk('relaunch', 'rl', 100, 'ch01', 'ch02')];
    expect(queuesOf(fold([...events, v(launchEv('a', 200, 'ch01', 'draft'))])).words).toBe('redrive rl: 1 queued');
    const drained = queuesOf(fold([...events, v(launchEv('a', 200, 'ch01', 'draft')), v(launchEv('b', 210, 'ch02', 'draft'))]));
    expect(drained.redrives).toEqual([]);
    expect(drained.words).toBeNull();
  });

  it('an undone action leaves; a hold counts until the cell is released; the name acted on last comes first', () => {
    const skip = bulk('skip', 'night', 100, 'ch01');
    const hold = bulk('hold', 'hold-0312', 200, 'ch02', 'ch03');
    const undo = v({ type: 'bulk_undo', at: 300, id: (skip as { id: string }).id, name: 'night' });
    const q = queuesOf(fold([skip, hold]));
    expect(q.redrives.map((g) => [g.name, g.skipped.length, g.held.length])).toEqual([['hold-0312', 0, 2], ['night', 1, 0]]);
    expect(q.words).toBe('redrive hold-0312: 2 held · redrive night: 1 skipped');
    const release = v({ type: 'decision', at: 400, kind: 'release', unit: 'ch03', step: 'draft' } as NewJournalEvent);
    expect(cellQueueMark(q, 'ch02', 'draft')).toBe('held by hold-0312: nothing starts it until released');
    expect(cellQueueMark(q, 'ch01', 'draft')).toBe('skipped by night: autopilot and run --next leave it alone');
    expect(cellQueueMark(q, 'ch09', 'draft')).toBeNull();
    const after = queuesOf(fold([skip, hold, undo, release]));
    expect(after.redrives).toEqual([{ name: 'hold-0312', actions: ['hold'], queued: [], skipped: [], held: cells('ch02') }]);
  });

  it('past MAX_BULK records the oldest leaves the ledger; its cells still queued and skipped are still counted, under its name', () => {
    const events = Array.from({ length: MAX_BULK }, (_, i) => bulk('relaunch', `rl-${i}`, 1000 + i, `u${i}`));
    const all = fold([bulk('skip', 'first-skip', 10, 'ch00'), bulk('relaunch', 'first', 100, 'ch01'), ...events]);
    expect(all.bulk.actions.some((a) => a.name === 'first')).toBe(false);
    const q = queuesOf(all);
    expect(q.totals).toEqual({ queued: Object.keys(all.bulk.queue).length, skipped: 1, held: 0 });
    expect(q.redrives.find((g) => g.name === 'first')).toEqual({ name: 'first', actions: ['relaunch'], queued: cells('ch01'), skipped: [], held: [] });
    expect(q.redrives.find((g) => g.name === 'first-skip')?.skipped).toEqual(cells('ch00'));
  });

  it("the redo queue: each cell with the cell redone from (a lone file's own); one origin is named", () => {
    const redo = v({ type: 'redo_applied', at: 100, id: 'redo:1', unit: 'ch03', step: 'research', cells: [{ unit: 'ch03', step: 'research', path: 'r/ch03.md', claim: null }, { unit: 'ch03', step: 'draft', path: 'd/ch03.md', claim: null }], moves: [] } as NewJournalEvent);
    const q = queuesOf(fold([redo]));
    expect(q.redo).toEqual([
      { unit: 'ch03', step: 'research', from: { unit: 'ch03', step: 'research' } },
      { unit: 'ch03', step: 'draft', from: { unit: 'ch03', step: 'research' } },
    ]);
    expect(q.words).toBe('redo from ch03 research: 2 queued');
    const lone = v({ type: 'redo_queued', at: 200, unit: 'ch05', step: 'draft', path: 'd/ch05.md', backup: 'd/ch05.md.bak' } as NewJournalEvent);
    const both = queuesOf(fold([redo, lone]));
    expect(both.redo[2]).toEqual({ unit: 'ch05', step: 'draft', from: { unit: 'ch05', step: 'draft' } });
    expect(both.words).toBe('redo: 3 queued');
    expect(cellQueueMark(both, 'ch03', 'draft')).toBe('queued redo from ch03 research: autopilot takes it first');
    expect(queuesLines(both)).toEqual(['redo: 3 queued', '  redo: ch03 research, ch03 draft, ch05 draft queued; autopilot takes them first, enter in Plan launches one']);
  });

  it('the operator model keeps the part per snapshot: the same object for the same ledger', async () => {
    const ws = await loadWorkspace(copyDemo());
    const ledger = fold([bulk('relaunch', 'rl', 100, 'ch01')]);
    const sup = { snap: plainSnapshot(ledger), limits: null, concurrency: {} };
    const a = buildOperatorModel(ws, sup, 1000);
    expect(a.queues.totals.queued).toBe(1);
    expect(buildOperatorModel(ws, sup, 2000).queues).toBe(a.queues);
    expect(buildOperatorModel(ws, null, 2000).queues).toBe(NO_OPERATOR_QUEUES);
  });
});
