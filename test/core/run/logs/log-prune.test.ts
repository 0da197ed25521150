import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { planPrune, pruneLogs, logSizes, withLogBudget } from '../../../../src/run/logs/prune.js';
import { parseJournal, readJournal, type NewJournalEvent } from '../../../../src/run/journal/journal.js';
import { createSupervisorJournal } from '../../../../src/run/supervisor/journal.js';
import { parseConfig } from '../../../../src/pipeline/config/parse.js';
import { DEFAULT_LOGS_MAX_BYTES } from '../../../../src/pipeline/defaults.js';
import { DEFAULT_BREAKER, DEFAULT_LIMITS } from '../../../../src/pipeline/schema.js';
import type { SupervisorEvent } from '../../../../src/run/supervisor/types.js';
import { tempDir } from '../../../helpers/workspace.js';
import { writeAttempts } from '../../../helpers/attempt-logs.js';

// The disk budget of .checkroom/runs/ (docs/logs.md, "Disk budget") on real files: the oldest
// attempts' logs go first until the rest fit; a cell's last attempt and a live run's log
// stay whatever the budget; each removal is one log_pruned journal event; the supervisor's
// journal checks the budget after each exit.

const kb = (n: number) => Array.from({ length: n }, () => 'x'.repeat(1023));

function workspace() {
  const root = tempDir('log-prune-');
  const w = writeAttempts(root, [
    { unit: 'ch01', step: 'draft', attempts: [{ lines: kb(10), class: 'RATE_LIMITED' }, { lines: kb(10), class: 'UNKNOWN' }, { lines: kb(10), class: 'SUCCESS' }] },
    { unit: 'ch02', step: 'draft', attempts: [{ lines: kb(10), class: 'UNKNOWN' }, { lines: kb(10) }] },
  ]);
  const events = () => parseJournal(readFileSync(join(root, '.checkroom', 'journal.jsonl'), 'utf8')).events;
  return { root, w, events };
}

describe('planPrune', () => {
  it('removes the oldest first, never a last attempt nor a live run, and stops once under budget', () => {
    const { root, events } = workspace();
    const sizes = logSizes(root, events());
    expect(sizes.map((s) => s.bytes)).toEqual([10240, 10240, 10240, 10240, 10240]);
    expect(planPrune(sizes, 41_000).map((p) => `${p.log.unit} a${p.log.attempt}`)).toEqual(['ch01 a1']);
    expect(planPrune(sizes, 25_000).map((p) => `${p.log.unit} a${p.log.attempt}`)).toEqual(['ch01 a1', 'ch01 a2', 'ch02 a1']);
    // Budget 0: still only what may go. ch01 a3 is the cell's last; ch02 a2 is live.
    expect(planPrune(sizes, 0).map((p) => `${p.log.unit} a${p.log.attempt}`)).toEqual(['ch01 a1', 'ch01 a2', 'ch02 a1']);
    expect(planPrune(sizes, 10 ** 9)).toEqual([]);
  });
});

describe('pruneLogs', () => {
  it('unlinks the files and journals one log_pruned per removal; the last attempts survive', async () => {
    const { root, w, events } = workspace();
    const appended: NewJournalEvent[] = [];
    const r = await pruneLogs(root, events(), 25_000, async (e) => void appended.push(e), () => 42);
    expect(r.removed).toHaveLength(3);
    expect(w.map((x) => existsSync(x.logPath))).toEqual([false, false, true, false, true]);
    expect(appended).toEqual([
      { type: 'log_pruned', at: 42, runId: w[0]!.runId, unit: 'ch01', step: 'draft', attempt: 1, path: `.checkroom/runs/${w[0]!.runId}.log`, bytes: 10240, totalBytes: 51200, maxBytes: 25000 },
      expect.objectContaining({ runId: w[1]!.runId, attempt: 2 }),
      expect.objectContaining({ runId: w[3]!.runId, unit: 'ch02' }),
    ]);
    expect(r.notes).toEqual([]);
    const tight = await pruneLogs(root, [...events(), ...appended.map((e) => ({ ...e, v: 1 }) as never)], 1000, async () => undefined, () => 43);
    expect(tight.removed).toEqual([]);
    expect(tight.notes[0]).toContain("each cell's last attempt or a live run's log, which are never pruned");
  });

  it('a log that is a symlink out of the workspace is neither counted nor followed', async () => {
    const { root, w, events } = workspace();
    const outside = join(tempDir('prune-outside-'), 'keep.txt');
    writeFileSync(outside, 'precious\n');
    const { rmSync } = await import('node:fs');
    rmSync(w[0]!.logPath);
    symlinkSync(outside, w[0]!.logPath);
    await pruneLogs(root, events(), 0, async () => undefined, () => 1);
    expect(readFileSync(outside, 'utf8')).toBe('precious\n');
  });
});

describe('the supervisor journal checks the budget after each exit', () => {
  it('an exit over budget prunes and journals it; the notice says what went', async () => {
    const { root, w } = workspace();
    const emitted: SupervisorEvent[] = [];
    const j = createSupervisorJournal({ root, now: () => 7, ledgerCfg: { breaker: DEFAULT_BREAKER, limits: DEFAULT_LIMITS }, emit: (e) => emitted.push(e), onCooldownEnd: () => undefined, isClosed: () => false });
    await j.load();
    withLogBudget(j, { root, now: () => 7, emit: (e) => emitted.push(e), maxBytes: 45_000 });
    await j.append({ type: 'exit', at: 7, runId: w[4]!.runId, unit: 'ch02', step: 'draft', agent: 'writer', exitCode: 0, signal: null, class: 'SUCCESS', markerFound: true, cmdFp: '', errFp: '', keywords: [], errorTail: [], durationMs: 1 });
    const pruned = (await readJournal(root)).events.filter((e) => e.type === 'log_pruned');
    expect(pruned.map((e) => e.type === 'log_pruned' && e.runId)).toEqual([w[0]!.runId]);
    expect(existsSync(w[0]!.logPath)).toBe(false);
    expect(emitted.some((e) => e.type === 'notice' && /pruned 1 old attempt log \(10240 bytes\)/.test(e.message))).toBe(true);
    // The in-memory journal has it too: the next exit does not count the removed log again.
    expect(j.events().filter((e) => e.type === 'log_pruned')).toHaveLength(1);
  });
});

describe('logs.max_bytes in checkroom.yaml', () => {
  it('takes bytes or a size with a unit, has a default, and says what it wants', () => {
    expect(parseConfig('logs: { max_bytes: 500MB }\n', 'checkroom.yaml').logs).toEqual({ maxBytes: 500_000_000 });
    expect(parseConfig('logs: { max_bytes: 2GiB }\n', 'checkroom.yaml').logs).toEqual({ maxBytes: 2 * 1024 ** 3 });
    expect(parseConfig('logs: { max_bytes: 1048576 }\n', 'checkroom.yaml').logs).toEqual({ maxBytes: 1048576 });
    expect(parseConfig('name: x\n', 'checkroom.yaml').logs).toEqual({ maxBytes: DEFAULT_LOGS_MAX_BYTES });
    expect(() => parseConfig('logs: { max_bytes: lots }\n', 'checkroom.yaml')).toThrow(/a size in bytes: an integer, or a number with a unit/);
  });
});
