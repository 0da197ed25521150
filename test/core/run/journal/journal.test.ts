import { appendFile, mkdtemp, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appendJournal, journalPath, parseJournal, readJournal, type NewJournalEvent } from '../../../../src/run/journal/journal.js';
import { replayJournal } from '../../../../src/run/journal/ledger-fold.js';
import { CONCURRENCY_EVENT_FIELDS, type ConcurrencyEvent } from '../../../../src/run/journal/concurrency-events.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'checkroom-journal-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const cfg = {
  breaker: { threshold: 2, cooldownMs: 10_000, maxCooldownMs: 60_000 },
  limits: { maxLaunches: 100, maxConsecutiveFailures: 10 },
};

const launch = (runId: string, at: number, unit = 'ch01', step = 'draft'): NewJournalEvent => ({
  type: 'launch', at, runId, unit, step, agent: 'writer', attempt: 1, argv: ['writer', unit], cwd: '/w',
  logPath: `/w/.checkroom/runs/${runId}.log`, pid: 1234, procStart: 99, outputPath: `/w/drafts/${unit}-draft.md`,
});
const exit = (runId: string, at: number, cls: 'SUCCESS' | 'RATE_LIMITED' | 'UNKNOWN', unit = 'ch01', step = 'draft'): NewJournalEvent => ({
  type: 'exit', at, runId, unit, step, agent: 'writer', exitCode: cls === 'SUCCESS' ? 0 : 1, signal: null, class: cls,
  markerFound: cls === 'SUCCESS', cmdFp: 'c', errFp: `e-${runId}`, keywords: [runId], errorTail: cls === 'SUCCESS' ? [] : [`${cls} in ${runId}`], durationMs: 500,
});

describe('journal', () => {
  it('appends one JSON line per event, creating .checkroom, and reads them back in order', async () => {
    await appendJournal(root, { type: 'session', at: 1, kind: 'start', pid: 42 });
    // Not awaited one by one: the append queue must still keep call order.
    await Promise.all([appendJournal(root, launch('r1', 2)), appendJournal(root, exit('r1', 3, 'UNKNOWN'))]);
    const text = await readFile(journalPath(root), 'utf8');
    expect(text.split('\n')).toHaveLength(4);
    expect(text.endsWith('\n')).toBe(true);
    const { events, warnings } = await readJournal(root);
    expect(warnings).toEqual([]);
    expect(events.map((e) => e.type)).toEqual(['session', 'launch', 'exit']);
    expect(events.every((e) => e.v === 1)).toBe(true);
  });

  it("a read in the writing process sees every append already asked for, awaited or not (never behind the supervisor's ledger)", async () => {
    const asked = [appendJournal(root, launch('r1', 2)), appendJournal(root, exit('r1', 3, 'UNKNOWN'))];
    // Asked, not awaited: the read waits for them rather than racing the file.
    expect((await readJournal(root)).events.map((e) => e.type)).toEqual(['launch', 'exit']);
    await Promise.all(asked);
  });

  it('a missing journal is empty, without warnings', async () => {
    expect(await readJournal(root)).toEqual({ events: [], warnings: [] });
  });

  it('a torn last line (kill -9 mid-write) is ignored with a warning, and replay is unchanged', async () => {
    const evs = [launch('r1', 1), exit('r1', 2, 'RATE_LIMITED'), launch('r2', 3), exit('r2', 4, 'RATE_LIMITED'), launch('r3', 5)];
    for (const e of evs) await appendJournal(root, e);
    const before = await readJournal(root);
    const full = JSON.stringify({ ...exit('r3', 6, 'UNKNOWN'), v: 1 });
    await appendFile(journalPath(root), full.slice(0, Math.floor(full.length / 2)));

    const after = await readJournal(root);
    expect(after.events).toEqual(before.events);
    expect(after.warnings).toHaveLength(1);
    expect(after.warnings[0]).toMatch(/line 6: torn last line/);

    const a = replayJournal(before.events, 5_000, cfg);
    const b = replayJournal(after.events, 5_000, cfg);
    expect(b.cells['ch01/draft'].counts).toEqual({ RATE_LIMITED: 2 });
    expect(b.cells['ch01/draft'].counts).toEqual(a.cells['ch01/draft'].counts);
    expect(b.agents.writer.view).toEqual(a.agents.writer.view);
    expect(b.agents.writer.view).toMatchObject({ state: 'open', trips: 1, remainingMs: 4 + 10_000 - 5_000 });
    // r3 has no exit: it is live and must be reaped by the restarted checkroom.
    expect(b.liveRuns.map((r) => r.runId)).toEqual(['r3']);

    // The next append starts on a fresh line, so the torn fragment does not swallow it.
    await appendJournal(root, exit('r3', 7, 'SUCCESS'));
    const again = await readJournal(root);
    expect(again.events).toHaveLength(6);
    expect(again.warnings).toEqual(['journal line 6: not JSON, ignored']);
    expect(replayJournal(again.events, 20_000, cfg).liveRuns).toEqual([]);
  });

  it('garbage, unknown types, other versions and malformed fields become warnings', () => {
    const good = JSON.stringify({ v: 1, at: 5, type: 'autopilot', on: true, reason: 'operator' });
    const text = [
      good,
      'not json at all',
      JSON.stringify({ v: 2, at: 1, type: 'autopilot', on: true, reason: 'x' }),
      JSON.stringify({ v: 1, at: 1, type: 'teleport' }),
      JSON.stringify({ v: 1, at: 1, type: 'launch', runId: 'r' }),
      '[1,2]',
      '',
      good,
    ].join('\n') + '\n';
    const { events, warnings } = parseJournal(text);
    expect(events).toHaveLength(2);
    expect(warnings).toEqual([
      'journal line 2: not JSON, ignored',
      'journal line 3: unsupported version 2, ignored',
      'journal line 4: unknown event type "teleport", ignored',
      'journal line 5: launch event with bad field "unit", ignored',
      'journal line 6: not an object, ignored',
    ]);
  });

  it("a concurrency record is the operator's, kept by the ledger over checkroom.yaml's; a malformed one is refused", () => {
    const ok: ConcurrencyEvent = { v: 1, at: 5, type: 'concurrency', agent: 'writer', concurrency: 4 };
    const { events, warnings } = parseJournal([JSON.stringify(ok), JSON.stringify({ ...ok, concurrency: 'four' })].join('\n') + '\n');
    expect(events).toEqual([ok]);
    expect(warnings).toEqual(['journal line 2: concurrency event with bad field "concurrency", ignored']);
    expect(Object.keys(CONCURRENCY_EVENT_FIELDS)).toEqual(['concurrency']);
  });

  it('decodes a multi-byte character split across read chunks', async () => {
    const chunk = 1 << 20;
    const head = JSON.stringify({ v: 1, at: 1, type: 'decision', kind: 'keep', note: '' }).slice(0, -2);
    const pad = 'x'.repeat(chunk - 1 - Buffer.byteLength(head));
    const note = `${pad}€€€`;
    await mkdir(join(root, '.checkroom'), { recursive: true });
    await writeFile(journalPath(root), JSON.stringify({ v: 1, at: 1, type: 'decision', kind: 'keep', note }) + '\n');
    const { events, warnings } = await readJournal(root);
    expect(warnings).toEqual([]);
    expect(events).toHaveLength(1);
    expect(events[0].type === 'decision' && events[0].note?.endsWith('€€€')).toBe(true);
  });
});
