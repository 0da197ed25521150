import { describe, expect, it } from 'vitest';
import type { JournalEvent, NewJournalEvent } from '../../../src/run/journal/journal.js';
import { LedgerFold, replayJournal } from '../../../src/run/journal/ledger-fold.js';
import { parseJournal } from '../../../src/run/journal/journal.js';
import { bulkRecordOf, undoPlanOf, undoWords } from '../../../src/bulk/apply.js';
import { exitEv, launchEv } from '../../helpers/history-journal.js';

// Undo of each set action (docs/redrive.md, Undo): one bulk_undo record reverts the whole named
// action, folded by the ledger — reset: attempts restored from the ledger; skip: unskipped;
// hold: released; relaunch: cells not launched yet unqueued, what ran stays and the undo says so.

const cfg = { breaker: { threshold: 9, cooldownMs: 10_000, maxCooldownMs: 60_000 }, limits: { maxLaunches: 99, maxConsecutiveFailures: 99 } };
const v = (e: NewJournalEvent): JournalEvent => ({ ...e, v: 1 }) as JournalEvent;

/** Two cells that failed: ch01 twice (then escalated), ch02 once. */
const past = (): JournalEvent[] =>
  [
    launchEv('a1', 100, 'ch01', 'draft'),
    exitEv('a1', 110, 'ch01', 'draft', 'RATE_LIMITED', 10),
    launchEv('a2', 120, 'ch01', 'draft', 2),
    exitEv('a2', 130, 'ch01', 'draft', 'RATE_LIMITED', 10),
    { type: 'escalate', at: 131, unit: 'ch01', step: 'draft', class: 'RATE_LIMITED', reason: 'cap reached' },
    launchEv('b1', 140, 'ch02', 'draft'),
    exitEv('b1', 150, 'ch02', 'draft', 'RATE_LIMITED', 10),
  ].map((e) => v(e as NewJournalEvent));

const order = (action: 'relaunch' | 'reset' | 'skip' | 'hold', at = 200) =>
  v(bulkRecordOf({ action, name: `rl-${action}`, filter: 'class=RATE_LIMITED', cells: [{ unit: 'ch01', step: 'draft' }, { unit: 'ch02', step: 'draft' }] }, at));
const undo = (id: string, at = 300): JournalEvent => v({ type: 'bulk_undo', at, id, name: 'rl' });

describe('a set action and its undo, folded by the ledger', () => {
  it('the journal accepts both records and refuses a cells field that is not cells', () => {
    const rec = order('reset');
    const text = [rec, undo((rec as { id: string }).id)].map((e) => JSON.stringify(e)).join('\n') + '\n';
    expect(parseJournal(text).warnings).toEqual([]);
    const bad = JSON.stringify({ ...rec, cells: [{ unit: 'ch01' }] });
    expect(parseJournal(bad + '\n').warnings[0]).toMatch(/bulk_action event with bad field "cells"/);
  });

  it('reset forgets the attempts and the escalation; undo gives them back from the ledger', () => {
    const rec = order('reset');
    const id = (rec as { id: string }).id;
    const before = replayJournal(past(), 1000, cfg);
    const reset = replayJournal([...past(), rec], 1000, cfg);
    expect(reset.cells['ch01/draft'].attempts).toEqual([]);
    expect(reset.cells['ch01/draft'].state).toBe('idle');
    expect(reset.cells['ch01/draft'].escalation).toBeNull();
    expect(reset.bulk.actions.map((a) => [a.name, a.action, a.cells.length])).toEqual([['rl-reset', 'reset', 2]]);
    const back = replayJournal([...past(), rec, undo(id)], 1000, cfg);
    expect(back.cells['ch01/draft'].attempts).toEqual(before.cells['ch01/draft'].attempts);
    expect(back.cells['ch01/draft'].state).toBe('needs_human');
    expect(back.cells['ch01/draft'].escalation).toEqual(before.cells['ch01/draft'].escalation);
    expect(back.cells['ch02/draft'].counts).toEqual({ RATE_LIMITED: 1 });
    expect(back.bulk.actions[0].undoneAt).toBe(300);
    // A second undo of the same action changes nothing.
    expect(() => undoPlanOf(back, 'rl-reset')).toThrow('rl-reset was undone already');
  });

  it('reset then a new attempt, then undo: old attempts come back before the new one', () => {
    const rec = order('reset');
    const l = replayJournal([...past(), rec, v(launchEv('c1', 210, 'ch02', 'draft')), v(exitEv('c1', 220, 'ch02', 'draft', 'INFRA', 10)), undo((rec as { id: string }).id)], 1000, cfg);
    expect(l.cells['ch02/draft'].attempts.map((a) => a.class)).toEqual(['RATE_LIMITED', 'INFRA']);
  });

  it('hold holds every cell; undo releases what it held and leaves a later decision alone', () => {
    const rec = order('hold');
    const id = (rec as { id: string }).id;
    const held = replayJournal([...past(), rec], 1000, cfg);
    expect(held.cells['ch01/draft'].hold).toEqual({ at: 200, why: 'held by rl-hold' });
    expect(held.cells['ch02/draft'].hold).toEqual({ at: 200, why: 'held by rl-hold' });
    const later = v({ type: 'decision', at: 250, kind: 'hold', unit: 'ch02', step: 'draft', note: 'my own hold' });
    const back = replayJournal([...past(), rec, later, undo(id)], 1000, cfg);
    expect(back.cells['ch01/draft'].hold).toBeNull();
    expect(back.cells['ch02/draft'].hold).toEqual({ at: 250, why: 'my own hold' });
  });

  it('skip lists the cells as skipped; undo unskips them', () => {
    const rec = order('skip');
    const skipped = replayJournal([...past(), rec], 1000, cfg);
    expect(Object.keys(skipped.bulk.skipped)).toEqual(['ch01/draft', 'ch02/draft']);
    expect(replayJournal([...past(), rec, undo((rec as { id: string }).id)], 1000, cfg).bulk.skipped).toEqual({});
  });

  it('relaunch queues the cells counted anew; a launch takes one out; undo unqueues the other and says the first ran', () => {
    const rec = order('relaunch');
    const id = (rec as { id: string }).id;
    const queued = replayJournal([...past(), rec], 1000, cfg);
    expect(Object.keys(queued.bulk.queue)).toEqual(['ch01/draft', 'ch02/draft']);
    expect(queued.cells['ch01/draft'].state).toBe('idle');
    const ran = [...past(), rec, v(launchEv('c1', 210, 'ch01', 'draft'))];
    const l = replayJournal(ran, 1000, cfg);
    expect(Object.keys(l.bulk.queue)).toEqual(['ch02/draft']);
    const plan = undoPlanOf(l, null);
    expect(plan.back).toEqual(['ch02/draft']);
    expect(plan.ran).toEqual(['ch01/draft']);
    expect(undoWords(plan)).toBe('undid rl-relaunch: 1 cell unqueued, counters back; 1 already ran and stays (ch01/draft)');
    const back = replayJournal([...ran, undo(id)], 1000, cfg);
    expect(back.bulk.queue).toEqual({});
    expect(back.cells['ch02/draft'].attempts.length).toBe(1);
    // What ran keeps its fresh count: the undo does not put the escalation back on a running cell.
    expect(back.cells['ch01/draft'].state).toBe('running');
    expect(back.cells['ch01/draft'].escalation).toBeNull();
  });

  it('folding in pieces gives what folding at once gives', () => {
    const rec = order('reset');
    const all = [...past(), rec, undo((rec as { id: string }).id)];
    const f = new LedgerFold(cfg);
    for (const e of all) f.apply([e]).at(1000);
    expect(f.at(1000).cells).toEqual(replayJournal(all, 1000, cfg).cells);
    expect(f.at(1000).bulk).toEqual(replayJournal(all, 1000, cfg).bulk);
  });
});
