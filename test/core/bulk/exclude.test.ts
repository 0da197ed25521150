import { describe, expect, it } from 'vitest';
import { exclusionOf } from '../../../src/bulk/exclude.js';
import { BULK_ACTIONS, isCellList } from '../../../src/bulk/events.js';
import { bulkStatusOf } from '../../../src/bulk/select.js';
import { emptyBulk } from '../../../src/bulk/fold.js';
import { replayJournal } from '../../../src/run/journal/ledger-fold.js';
import type { Cell } from '../../../src/types.js';
import type { JournalEvent } from '../../../src/run/journal/journal.js';
import { exitEv, launchEv } from '../../helpers/history-journal.js';

// The one decision of what a set action never touches (docs/redrive.md, Never redone), and a
// cell's status in the filter's words, on plain values.

const cfg = { breaker: { threshold: 9, cooldownMs: 10_000, maxCooldownMs: 60_000 }, limits: { maxLaunches: 99, maxConsecutiveFailures: 99 } };
const cell = (over: Partial<Cell> = {}): Cell => ({
  unit: 'ch01', step: 'draft', batch: 1, path: 'drafts/ch01-draft.md', status: 'not_started', disk: 'missing', checkpoint: null,
  exists: false, bytes: 0, chars: 0, marker: false, mtimeMs: 0, triage: null, blockedBy: [], ...over,
});

describe('exclusionOf', () => {
  it('the marker first: a done cell is never redone, even running or written', () => {
    expect(exclusionOf({ marker: true, running: true, writtenBy: 'pid 9' })).toBe('has its marker: never redone');
    expect(exclusionOf({ marker: false, running: true, writtenBy: 'pid 9' })).toBe('running now');
    expect(exclusionOf({ marker: false, running: false, writtenBy: 'drafts/ch01-draft.md is being written by pid 9' })).toBe('being written: drafts/ch01-draft.md is being written by pid 9');
    expect(exclusionOf({ marker: false, running: false, writtenBy: null })).toBeNull();
  });
});

describe('bulkStatusOf', () => {
  const ledger = (events: JournalEvent[]) => replayJournal(events, 1000, cfg);
  const failedOnce = [launchEv('a', 1, 'ch01', 'draft'), exitEv('a', 2, 'ch01', 'draft', 'RATE_LIMITED', 1)] as JournalEvent[];

  it('reads the disk, then the ledger: done, running, held, escalated, waiting, failed, partial', () => {
    expect(bulkStatusOf(cell({ status: 'done', marker: true }), null, false)).toBe('done');
    expect(bulkStatusOf(cell(), null, true)).toBe('running');
    expect(bulkStatusOf(cell({ status: 'partial' }), null, false)).toBe('partial');
    expect(bulkStatusOf(cell(), ledger(failedOnce), false)).toBe('failed');
    expect(bulkStatusOf(cell(), ledger([...failedOnce, { v: 1, type: 'retry_scheduled', at: 3, unit: 'ch01', step: 'draft', attempt: 2, delayMs: 9, reason: 'x' }]), false)).toBe('waiting');
    expect(bulkStatusOf(cell(), ledger([...failedOnce, { v: 1, type: 'escalate', at: 3, unit: 'ch01', step: 'draft', class: 'RATE_LIMITED', reason: 'cap' }]), false)).toBe('escalated');
    expect(bulkStatusOf(cell(), ledger([...failedOnce, { v: 1, type: 'decision', at: 3, kind: 'hold', unit: 'ch01', step: 'draft' }]), false)).toBe('held');
    expect(bulkStatusOf(cell(), null, false)).toBe('not_started');
  });

  it('a journal with no set action folds to the empty bulk ledger; the journal checks a cells field', () => {
    expect(ledger(failedOnce).bulk).toEqual(emptyBulk());
    expect(BULK_ACTIONS).toEqual(['relaunch', 'reset', 'skip', 'hold']);
    expect(isCellList([{ unit: 'ch01', step: 'draft' }])).toBe(true);
    expect(isCellList([{ unit: 'ch01' }])).toBe(false);
    expect(isCellList('ch01/draft')).toBe(false);
  });
});
