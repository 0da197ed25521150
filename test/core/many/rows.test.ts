import { describe, expect, it } from 'vitest';
import { parseEntry } from '../../../src/many/entries.js';
import { hostOf, nextDelay, nextState, sortRows, waitFor, type OverviewRow, type RowState } from '../../../src/many/rows.js';
import type { Urgency, WorkspaceSummary } from '../../../src/many/summary.js';

// docs/many.md, Urgency and Remote: the order, unreachable kept apart from an empty pipeline,
// and the bounded backoff.

const summary = (urgency: Urgency): WorkspaceSummary => ({ name: urgency, pipeline: null, phase: 1, batch: 1, total: 1, done: 0, partial: 0, failed: 0, needsYou: 0, running: 0, spendUsd: null, eta: null, alarms: [], urgency });
const row = (label: string, state: RowState): OverviewRow => {
  const entry = parseEntry(label);
  return { entry, host: hostOf(entry), state };
};

describe('sortRows', () => {
  it('needs you, unreachable, failing, running, idle, done; the listed order within one', () => {
    const rows = [
      row('/done', { kind: 'ok', summary: summary('done'), at: 0 }),
      row('/idle', { kind: 'ok', summary: summary('idle'), at: 0 }),
      row('ssh://h/down', { kind: 'unreachable', reason: 'connection refused', since: 0, last: null }),
      row('/run', { kind: 'ok', summary: summary('running'), at: 0 }),
      row('/bad', { kind: 'error', reason: 'no such directory' }),
      row('/you1', { kind: 'ok', summary: summary('needs-you'), at: 0 }),
      row('/fail', { kind: 'ok', summary: summary('failing'), at: 0 }),
      row('/you2', { kind: 'ok', summary: summary('needs-you'), at: 0 }),
    ];
    expect(sortRows(rows).map((r) => r.entry.label)).toEqual(['/you1', '/you2', 'h:/down', '/bad', '/fail', '/run', '/idle', '/done']);
  });
});

describe('nextState', () => {
  it('unreachable keeps when it began and the last status read; a good read replaces it', () => {
    const s1 = nextState({ kind: 'ok', summary: summary('running'), at: 1 }, { kind: 'unreachable', reason: 'connection refused' }, 10);
    expect(s1).toEqual({ kind: 'unreachable', reason: 'connection refused', since: 10, last: summary('running') });
    const s2 = nextState(s1, { kind: 'unreachable', reason: 'timed out' }, 20);
    expect(s2).toEqual({ ...s1, reason: 'timed out' });
    expect(nextState(s2, { kind: 'ok', summary: summary('idle') }, 30)).toEqual({ kind: 'ok', summary: summary('idle'), at: 30 });
  });
});

describe('nextDelay', () => {
  it('a remote backs off doubling per failure, bounded at 8 × the interval; a local one never', () => {
    expect([0, 1, 2, 3, 4, 10].map((f) => nextDelay(true, 1000, f))).toEqual([1000, 2000, 4000, 8000, 8000, 8000]);
    expect(nextDelay(false, 1000, 5)).toBe(1000);
  });
});

describe('waitFor', () => {
  it('a read asked for by a file event waits until the gap after the last read has passed', () => {
    expect(waitFor(200, 10_000, 9_500, 2000)).toBe(1500);
    expect(waitFor(200, 10_000, 5_000, 2000)).toBe(200);
  });
});
