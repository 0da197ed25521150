import { describe, expect, it } from 'vitest';
import { historyOf } from '../../../src/history/timeline.js';
import { bulkRecordOf } from '../../../src/bulk/apply.js';
import type { JournalEvent } from '../../../src/run/journal/journal.js';

// The journal record of a set action shows in History with its name, and so does its undo.

describe('History rows of a set action', () => {
  it('names the action, what it did to how many cells, the filter, and the undo', () => {
    const rec = bulkRecordOf({ action: 'relaunch', name: 'rate-limit-0200', filter: 'class=RATE_LIMITED from=02:00 to=04:00', cells: [{ unit: 'ch01', step: 'draft' }, { unit: 'ch05', step: 'draft' }] }, 100);
    const undo = { type: 'bulk_undo', at: 200, id: rec.id, name: rec.name, v: 1 } as JournalEvent;
    const rows = historyOf([{ ...rec, v: 1 } as JournalEvent, undo]).rows;
    expect(rows.map((r) => [r.kind, r.key, r.text])).toEqual([
      ['decision', null, 'operator: rate-limit-0200: relaunch 2 cells (class=RATE_LIMITED from=02:00 to=04:00)'],
      ['decision', null, 'operator: undid rate-limit-0200'],
    ]);
  });
});
