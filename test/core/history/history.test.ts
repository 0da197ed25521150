import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJournal } from '../../../src/run/journal/journal.js';
import { runRecordsOf, runDurationMs } from '../../../src/history/run-records.js';
import { historyOf, HistoryFold } from '../../../src/history/timeline.js';
import { filterRows, parseMoment, SinceError } from '../../../src/history/filter.js';
import { digestLines, digestOf, lastSessionEnd } from '../../../src/history/digest.js';
import { pastCells } from '../../../src/history/past.js';
import { JournalTail } from '../../../src/history/journal-tail.js';
import { rowText } from '../../../src/history/words.js';
import { BreakerTrips } from '../../../src/history/breaker-trips.js';
import { tempDir } from '../../helpers/workspace.js';
import { HOUR, MIN, exitEv, launchEv, recordedPast, writeJournal } from '../../helpers/history-journal.js';

const NOW = Date.UTC(2026, 11, 2, 12, 0, 0);

async function recorded() {
  const root = tempDir('checkroom-history-');
  writeJournal(root, recordedPast(NOW));
  return { root, events: (await readJournal(root)).events };
}

describe('run records: one run per launch, joined with its exit', () => {
  it('takes duration from exit.durationMs, cost from agent_facts, the wait from the retry', async () => {
    const { events } = await recorded();
    const runs = runRecordsOf(events);
    expect(runs.map((r) => `${r.key}#${r.attempt} ${r.class}`)).toEqual([
      'ch01/research#1 SUCCESS',
      'ch01/draft#1 UNKNOWN',
      'ch01/draft#2 SUCCESS',
      'ch02/research#1 PERMISSION',
      'ch02/research#1 SUCCESS',
    ]);
    const r3 = runs[2];
    expect(runDurationMs(r3)).toBe(8 * MIN);
    expect(r3.costUsd).toBe(1.5);
    expect(r3.tokens).toEqual({ in: 1000, out: 500 });
    expect(r3.waitMs).toBe(2 * MIN);
    expect(runs[0].waitMs).toBeNull();
    expect(runs[1].error).toBe('UNKNOWN: the agent said no');
  });

  it('a cluster job\'s queue wait is apart from its run time, in the record and its words (docs/scale-out.md, Queue time)', () => {
    const runs = runRecordsOf([
      { ...launchEv('a', 0, 'u', 's'), executor: 'slurm', jobId: '7', v: 1 },
      { ...exitEv('a', 10 * MIN, 'u', 's', 'SUCCESS', 10 * MIN), queueWaitMs: 4 * MIN, v: 1 },
    ] as never);
    expect(runs.map((r) => [r.durationMs, r.queueWaitMs])).toEqual([[6 * MIN, 4 * MIN]]);
    expect(rowText({ run: runs[0] } as never)).toBe('#1 writer@slurm SUCCESS 6 m 00 s queued 4 m 00 s');
  });

  it('a run with no exit is running; a reaped one has no duration', () => {
    const runs = runRecordsOf([
      { ...launchEv('a', 1, 'u', 's'), v: 1 },
      { ...launchEv('b', 2, 'u', 't'), v: 1 },
      { type: 'reaped', at: 5, runId: 'b', pid: 1, outcome: 'gone', v: 1 },
    ] as never);
    expect(runs.map((r) => [r.outcome, r.durationMs])).toEqual([
      ['running', null],
      ['reaped', null],
    ]);
  });
});

describe('timeline', () => {
  it('lists runs, decisions, breaker actions, escalations and sessions in journal order', async () => {
    const { events } = await recorded();
    const h = historyOf(events);
    expect(h.rows.map((r) => r.kind)).toEqual(['session', 'run', 'run', 'run', 'run', 'escalate', 'breaker', 'session', 'session', 'decision', 'run']);
    expect(rowText(h.rows[2])).toContain('#1 writer UNKNOWN 9 m 00 s');
    expect(rowText(h.rows[2])).toContain('exit 1 — UNKNOWN: the agent said no');
  });

  it('says when an agent’s breaker tripped, as the ledger folds it (the configured threshold)', () => {
    const fails = [1, 2, 3]
      .flatMap((i) => [launchEv(`f${i}`, NOW + i * MIN, 'ch01', 'draft', i), exitEv(`f${i}`, NOW + i * MIN + 1, 'ch01', 'draft', 'UNKNOWN', 1)])
      .map((e) => ({ ...e, v: 1 }) as never);
    const trips = (threshold: number) => historyOf(fails, { threshold, cooldownMs: 30_000, maxCooldownMs: 600_000 }).rows.filter((r) => r.kind === 'breaker');
    expect(trips(3).map((r) => [r.at, r.agent, r.text])).toEqual([
      [NOW + 3 * MIN + 1, 'writer', 'breaker writer opened (trip 1, cooling down 30 s): UNKNOWN: UNKNOWN: the agent said no'],
    ]);
    expect(trips(4)).toEqual([]);
    // An operator's hold and a reaped run (its agent from its launch) are folded too; a held breaker never trips.
    const held = new BreakerTrips({ threshold: 1, cooldownMs: 1_000, maxCooldownMs: 1_000 });
    expect(held.apply({ v: 1, type: 'breaker', at: NOW, agent: 'writer', event: 'hold' })).toBeNull();
    expect(fails.map((e) => held.apply(e)).filter(Boolean)).toEqual([]);
  });

  it('folding in pieces gives what folding at once gives', async () => {
    const { events } = await recorded();
    const once = historyOf(events).rows;
    for (let cut = 0; cut <= events.length; cut++) {
      const f = new HistoryFold().apply(events.slice(0, cut)).apply(events.slice(cut));
      expect(f.rows).toEqual(once);
    }
  });

  it('filters by --since, --cell and words', async () => {
    const { events } = await recorded();
    const h = historyOf(events);
    const since = filterRows(h.rows, { since: NOW - HOUR }).map((i) => h.rows[i].kind);
    expect(since).toEqual(['run']);
    const cell = filterRows(h.rows, { cell: 'ch02/research' }).map((i) => rowText(h.rows[i]));
    expect(cell).toHaveLength(4);
    expect(filterRows(h.rows, { cell: 'ch01' })).toHaveLength(3);
    expect(filterRows(h.rows, { text: 'PERMISSION refused' })).toHaveLength(1);
  });
});

describe('moments', () => {
  it('reads durations back, times of day and dates, and refuses the rest with what to give', () => {
    expect(parseMoment('2h', NOW)).toBe(NOW - 2 * HOUR);
    expect(parseMoment('1h30m', NOW)).toBe(NOW - 90 * MIN);
    const d = new Date(parseMoment('00:00', NOW));
    expect([d.getHours(), d.getMinutes()]).toEqual([0, 0]);
    expect(parseMoment('00:00', NOW)).toBeLessThanOrEqual(NOW);
    expect(parseMoment('2026-12-01T10:00:00Z', NOW)).toBe(Date.UTC(2026, 11, 1, 10));
    expect(() => parseMoment('yesterday', NOW)).toThrow(SinceError);
    expect(() => parseMoment('yesterday', NOW)).toThrow(/duration back \(2h/);
  });
});

describe('digest: while you were away', () => {
  it('since the last session ended: done, failed, escalated, spent', async () => {
    const { events } = await recorded();
    const end = lastSessionEnd(events)!;
    expect(end).toBe(NOW - 120 * MIN);
    const d = digestOf(events, end, 'the last session ended');
    expect(d.done).toEqual(['ch02/research']);
    expect(d.spentUsd).toBe(0.75);
    const all = digestOf(events, 0, 'the start');
    expect(all.failed).toEqual([
      { key: 'ch01/draft', class: 'UNKNOWN' },
      { key: 'ch02/research', class: 'PERMISSION' },
    ]);
    expect(all.escalated.map((e) => e.key)).toEqual(['ch02/research']);
    expect(digestLines(d, 'run ch02 draft')).toEqual([
      'since the last session ended: 1 launch, 1 done, 0 failed, 0 escalated, $0.75 spent',
      '  done: ch02/research',
      '  needs you first: run ch02 draft',
    ]);
  });
});

describe('the past from the journal', () => {
  it('each cell as its last event before the moment left it; a cell first journalled later was not started', async () => {
    const { events } = await recorded();
    const at = (minsBack: number) => Object.fromEntries(pastCells(events, NOW - minsBack * MIN).status);
    expect(at(60)).toEqual({ 'ch01/research': 'done', 'ch01/draft': 'done', 'ch02/research': 'not_started' });
    expect(at(145)).toEqual({ 'ch01/research': 'done', 'ch01/draft': 'done', 'ch02/research': 'running' });
    expect(at(130)).toMatchObject({ 'ch02/research': 'needs_human' });
    expect(at(159)).toEqual({ 'ch01/research': 'done', 'ch01/draft': 'failed', 'ch02/research': 'not_started' });
    expect(at(10)['ch02/research']).toBe('done');
  });
});

describe('the journal tail', () => {
  it('reads the journal once, then only the lines appended, never a torn last line', async () => {
    const { root } = await recorded();
    const tail = new JournalTail(root);
    const first = await tail.read();
    expect(first.events).toHaveLength(20);
    expect((await tail.read()).events).toHaveLength(0);
    const file = join(root, '.checkroom', 'journal.jsonl');
    appendFileSync(
      file,
      JSON.stringify({ ...launchEv('r9', NOW, 'ch03', 'research'), v: 1 }) +
        '\n' +
        JSON.stringify({ ...exitEv('r9', NOW + 1, 'ch03', 'research', 'SUCCESS', 1), v: 1 }).slice(0, 30),
    );
    const more = await tail.read();
    expect(more.events.map((e) => e.type)).toEqual(['launch']);
    appendFileSync(file, JSON.stringify({ ...exitEv('r9', NOW + 1, 'ch03', 'research', 'SUCCESS', 1), v: 1 }).slice(30) + '\n');
    expect((await tail.read()).events.map((e) => e.type)).toEqual(['exit']);
  });

  it('reads a journal of several megabytes a chunk at a time without losing the lines cut at a chunk edge', async () => {
    const root = tempDir('checkroom-history-');
    const events = Array.from({ length: 12_000 }, (_, i) => launchEv(`run-${i}`, NOW + i, `ch${i % 100}`, 'draft', 1 + (i % 3)));
    writeJournal(root, events);
    const read = await new JournalTail(root).read();
    expect(read.warnings).toEqual([]);
    expect(read.events).toHaveLength(12_000);
    expect(read.events.map((e) => (e as { runId: string }).runId)).toEqual(events.map((e) => (e as { runId: string }).runId));
  });
});
