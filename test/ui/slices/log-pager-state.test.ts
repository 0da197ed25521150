import { describe, expect, it } from 'vitest';
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { closedPager, marks, statusWords, titleWords, topFor, wrapRows } from '../../../src/ui/pager/state.js';
import { attemptLogs, cellAttempts, pickAttempt } from '../../../src/run/logs/attempts.js';
import { openAttemptLog } from '../../../src/run/logs/open.js';
import { parseJournal, validateEvent } from '../../../src/run/journal/journal.js';
import { LOG_EVENT_FIELDS } from '../../../src/run/logs/journal-logs.js';
import { compilePattern } from '../../../src/pipeline/safe-pattern.js';
import { tempDir } from '../../helpers/workspace.js';
import { writeAttempts } from '../../helpers/attempt-logs.js';

// The pager's pure parts and the attempt list (docs/logs.md): rows by display width, search
// highlights, the status words; attempts folded from real journal lines, a pruned log said
// as pruned, and a log path out of .checkroom/runs/ refused.

describe('pager rows', () => {
  it('wraps by display width, wide characters counted twice', () => {
    expect(wrapRows('abcdefghij', 4)).toEqual(['abcd', 'efgh', 'ij']);
    expect(wrapRows('书书书', 4)).toEqual(['书书', '书']);
    expect(wrapRows('a\u001b[2Jb', 80)).toEqual(['a\\e[2Jb']);
  });

  it('cuts a row into hits and the rest', () => {
    expect(marks('one 429 two 429', compilePattern('429'))).toEqual([
      { text: 'one ', hit: false },
      { text: '429', hit: true },
      { text: ' two ', hit: false },
      { text: '429', hit: true },
    ]);
    expect(marks('nothing', compilePattern('x*'))).toEqual([{ text: 'nothing', hit: false }]);
    expect(marks('plain', null)).toEqual([{ text: 'plain', hit: false }]);
  });

  it('says where, which modes, and the search', () => {
    const p = { ...closedPager('ch01', 'draft', []), top: 10, rows: 5, lines: ['a', 'b', 'c', 'd', 'e'], total: 40, complete: true, follow: true, query: '429', hit: 12 };
    expect(statusWords(p)).toBe('lines 11-15 of 40 · follow · events · /429 at line 13');
    expect(statusWords({ ...p, complete: false, raw: true, wrap: true, follow: false, hit: null })).toBe('lines 11-15 of 40+ (indexing on demand) · wrap · raw · /429 (no match)');
    expect(titleWords(p)).toBe('log · ch01 draft · no attempt in the journal');
    expect(topFor(50, 19)).toBe(47);
    expect(topFor(1, 19)).toBe(0);
  });
});

describe('attempt logs from the journal', () => {
  it('lists a cell\'s attempts with class and error; a live one has none; a prune marks it', () => {
    const root = tempDir('attempt-logs-');
    const w = writeAttempts(root, [
      { unit: 'ch01', step: 'draft', attempts: [{ lines: ['x'], class: 'RATE_LIMITED', error: 'Error: 429' }, { lines: ['y'] }] },
      { unit: 'ch02', step: 'draft', attempts: [{ lines: ['z'], class: 'SUCCESS' }] },
    ]);
    const events = [
      ...parseJournal(readFileSync(join(root, '.checkroom', 'journal.jsonl'), 'utf8')).events,
      { v: 1 as const, at: 1, type: 'log_pruned' as const, runId: w[2]!.runId, unit: 'ch02', step: 'draft', attempt: 1, path: 'x', bytes: 2, totalBytes: 10, maxBytes: 5 },
    ];
    const all = attemptLogs(events, root);
    const ch01 = cellAttempts(all, 'ch01', 'draft');
    expect(ch01.map((a) => [a.attempt, a.class, a.error, a.live])).toEqual([
      [1, 'RATE_LIMITED', 'Error: 429', false],
      [2, null, '', true],
    ]);
    expect(pickAttempt(ch01, null)?.attempt).toBe(2);
    expect(pickAttempt(ch01, 1)?.runId).toBe(w[0]!.runId);
    expect(pickAttempt(ch01, 7)).toBeNull();
    const ch02 = cellAttempts(all, 'ch02', 'draft')[0]!;
    expect(ch02.pruned).toBe(true);
    expect(openAttemptLog(root, ch02, Date.UTC(2026, 11, 2))).toEqual({ error: expect.stringContaining("removed by the logs' disk budget at 2026-12-02T00:00:00.000Z") });
  });

  it('refuses a log path that resolves out of .checkroom/runs/, through a symlink too', () => {
    const root = tempDir('attempt-confine-');
    const [w] = writeAttempts(root, [{ unit: 'ch01', step: 'draft', attempts: [{ lines: ['ok'], class: 'SUCCESS' }] }]);
    const secret = join(tempDir('secret-'), 's.txt');
    writeFileSync(secret, 'secret\n');
    const link = join(root, '.checkroom', 'runs', 'link.log');
    symlinkSync(secret, link);
    const base = { ...attemptLogs([], root)[0], runId: 'r', unit: 'ch01', step: 'draft', agent: 'w', attempt: 1, launchedAt: 0, class: null, error: '', live: false, pruned: false };
    expect(openAttemptLog(root, { ...base, logPath: secret })).toEqual({ error: expect.stringContaining('not under .checkroom/runs/') });
    expect(openAttemptLog(root, { ...base, logPath: link })).toEqual({ error: expect.stringContaining('not under .checkroom/runs/') });
    const ok = openAttemptLog(root, { ...base, logPath: w!.logPath });
    expect('index' in ok && ok.index.read(0, 5)).toEqual(['ok']);
  });

  it('the journal accepts a log_pruned line and refuses one missing its fields', () => {
    const e = { v: 1, at: 1, type: 'log_pruned', runId: 'r', unit: 'u', step: 's', attempt: 1, path: '.checkroom/runs/r.log', bytes: 10, totalBytes: 100, maxBytes: 50 };
    expect(validateEvent(e)).toBeNull();
    expect(validateEvent({ ...e, bytes: 'ten' })).toMatch(/bad field "bytes"/);
    expect(Object.keys(LOG_EVENT_FIELDS)).toEqual(['log_pruned']);
  });
});
