import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { parseEntry } from '../../../src/many/entries.js';
import { createOverview, type Overview } from '../../../src/many/overview.js';
import type { ReadResult } from '../../../src/many/rows.js';
import type { WorkspaceSummary } from '../../../src/many/summary.js';

// docs/many.md: each workspace on its own timer, a remote backing off while it is down and
// read again at the interval once it answers; never two reads of one workspace at a time.

const summary: WorkspaceSummary = { name: 'b', pipeline: null, phase: 1, batch: 1, total: 2, done: 1, partial: 0, failed: 0, needsYou: 0, running: 1, spendUsd: null, eta: null, alarms: [], urgency: 'running' };

let ov: Overview | null = null;
beforeEach(() => vi.useFakeTimers());
afterEach(() => {
  ov?.close();
  vi.useRealTimers();
});

describe('createOverview', () => {
  it('a remote that is down is read again after 2, 4, 8, 8 intervals; once back, at the interval again', async () => {
    let up = false;
    const at: number[] = [];
    const read = async (): Promise<ReadResult> => {
      at.push(Date.now());
      return up ? { kind: 'ok', summary } : { kind: 'unreachable', reason: 'connection refused' };
    };
    const t0 = Date.now();
    ov = createOverview([parseEntry('ssh://h/w')], { read, now: Date.now, localMs: 100, remoteMs: 1000, gapMs: 0, watch: false });
    await vi.advanceTimersByTimeAsync(30_000);
    expect(at.map((t) => t - t0)).toEqual([0, 2000, 6000, 14000, 22000, 30000]);
    expect(ov.rows()[0]!.state).toMatchObject({ kind: 'unreachable', reason: 'connection refused', since: t0 });
    up = true;
    await vi.advanceTimersByTimeAsync(8000);
    expect(ov.rows()[0]!.state.kind).toBe('ok');
    at.length = 0;
    await vi.advanceTimersByTimeAsync(3000);
    expect(at).toHaveLength(3);
  });

  it('a local workspace is read every local interval; a refresh while a read runs waits for it (one read at a time)', async () => {
    let reading = 0;
    let most = 0;
    const read = async (): Promise<ReadResult> => {
      most = Math.max(most, ++reading);
      await new Promise((r) => setTimeout(r, 500));
      reading--;
      return { kind: 'ok', summary };
    };
    ov = createOverview([parseEntry('/a')], { read, now: Date.now, localMs: 2000, remoteMs: 5000, gapMs: 0, watch: false });
    let told = 0;
    ov.subscribe(() => told++);
    await vi.advanceTimersByTimeAsync(100);
    ov.refresh();
    ov.refresh();
    await vi.advanceTimersByTimeAsync(5000);
    expect(most).toBe(1);
    expect(told).toBeGreaterThanOrEqual(2);
    expect(ov.rows()[0]!.state.kind).toBe('ok');
  });

  it('paused while a room has the terminal: no reads; resumed, every workspace read at once', async () => {
    let reads = 0;
    const read = async (): Promise<ReadResult> => {
      reads++;
      return { kind: 'ok', summary };
    };
    ov = createOverview([parseEntry('/a'), parseEntry('ssh://h/b')], { read, now: Date.now, localMs: 1000, remoteMs: 1000, gapMs: 0, watch: false });
    await vi.advanceTimersByTimeAsync(10);
    expect(reads).toBe(2);
    ov.pause();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(reads).toBe(2);
    ov.resume();
    await vi.advanceTimersByTimeAsync(10);
    expect(reads).toBe(4);
  });

  it('rows come most urgent first and the array is kept until something changes', async () => {
    const read = async (e: { label: string }): Promise<ReadResult> =>
      e.label === '/calm' ? { kind: 'ok', summary: { ...summary, urgency: 'done' } } : { kind: 'error', reason: 'not a workspace' };
    ov = createOverview([parseEntry('/calm'), parseEntry('/broken')], { read, now: Date.now, localMs: 1000, remoteMs: 1000, gapMs: 0, watch: false });
    await vi.advanceTimersByTimeAsync(10);
    const rows = ov.rows();
    expect(rows.map((r) => r.entry.label)).toEqual(['/broken', '/calm']);
    expect(ov.rows()).toBe(rows);
  });
});
