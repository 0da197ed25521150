import { afterEach, describe, expect, it } from 'vitest';
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CutFold, type Cut } from '../../../src/triage/cut-evidence.js';
import { CUT_CACHE_FILE, readCuts } from '../../../src/triage/cut-read.js';
import { triageUnmarked } from '../../../src/triage/triage.js';
import { say } from '../../../src/reasons/say.js';
import type { FileFacts } from '../../../src/types.js';
import type { JournalEvent } from '../../../src/run/journal/journal.js';
import { tempDir } from '../../helpers/workspace.js';

// Issue 17 item 3, "the journal is evidence": the fold that says, per cell, how its last
// writer ended, its cached read, and what triage makes of it. The run that proves it end to
// end is test/ui/agents/cut-evidence-run.test.tsx.

const ROOT = '/ws';
const launch = (runId: string, attempt: number, at = 1000, unit = 'ch01', step = 'draft'): JournalEvent => ({
  v: 1,
  type: 'launch',
  at,
  runId,
  unit,
  step,
  agent: 'writer',
  attempt,
  argv: ['node'],
  cwd: ROOT,
  logPath: '/x.log',
  pid: 1,
  procStart: 1,
  outputPath: `${ROOT}/drafts/${unit}-draft.md`,
});
const exit = (runId: string, cls: string, at = 2000, extra: Record<string, unknown> = {}): JournalEvent =>
  ({ v: 1, type: 'exit', at, runId, unit: 'ch01', step: 'draft', agent: 'writer', exitCode: null, signal: null, class: cls, markerFound: false, cmdFp: '', errFp: '', keywords: [], errorTail: [], durationMs: 1, ...extra }) as JournalEvent;
const rel = (abs: string): string => abs.slice(ROOT.length + 1);
const fold = (...events: JournalEvent[]): Map<string, Cut> => new CutFold(rel).apply(events).cuts();

describe('cut evidence: how a cell\'s last writer ended, from the journal', () => {
  it.each([
    ['CANCELLED', {}, 'cancelled'],
    ['STALLED', { error: 'stopped by the idle watchdog: no output and no growth of drafts/ch01-draft.md' }, 'stalled'],
    ['STALLED', { error: 'stopped at the overall timeout' }, 'timed_out'],
    ['OOM_KILLED', {}, 'killed'],
    ['UNKNOWN', { signal: 'SIGKILL' }, 'killed'],
  ])('an exit of class %s (%o) is a cut: %s', (cls, extra, event) => {
    expect(fold(launch('r1', 2), exit('r1', cls, 2000, extra)).get('ch01/draft')).toEqual({ event, at: 2000, attempt: 2, path: 'drafts/ch01-draft.md' });
  });

  it('a reaped run (checkroom died, the agent was ended at restart) is a cut', () => {
    const reaped = { v: 1, type: 'reaped', at: 3000, runId: 'r1', pid: 1, outcome: 'reaped' } as JournalEvent;
    expect(fold(launch('r1', 1), reaped).get('ch01/draft')?.event).toBe('reaped');
    // Found gone at the restart, no end of its own recorded (the agents died with checkroom).
    expect(fold(launch('r1', 1), { ...reaped, outcome: 'gone' } as JournalEvent).get('ch01/draft')?.event).toBe('lost');
  });

  it('a run that ended on its own, a later launch, or a decision about the file since: no cut', () => {
    expect(fold(launch('r1', 1), exit('r1', 'UNKNOWN')).size).toBe(0);
    expect(fold(launch('r1', 1), exit('r1', 'CANCELLED'), launch('r2', 2, 3000)).size).toBe(0);
    // The exit of an older run that comes late does not speak for the newer run's file.
    expect(fold(launch('r1', 1), launch('r2', 2, 3000), exit('r1', 'CANCELLED', 4000)).size).toBe(0);
    const kept = { v: 1, type: 'decision', at: 5000, kind: 'keep', unit: 'ch01', step: 'draft' } as JournalEvent;
    expect(fold(launch('r1', 1), exit('r1', 'CANCELLED'), kept).size).toBe(0);
  });
});

const facts = (over: Partial<FileFacts>): FileFacts => ({
  path: 'drafts/ch01-draft.md',
  exists: true,
  bytes: 400,
  chars: 400,
  marker: false,
  markerNotLast: false,
  mtimeMs: 1500,
  tail: `# Ch01\n\n${'A sentence that ends. '.repeat(15)}\n`,
  fenceOpen: false,
  ...over,
});

describe('triage with the journal as evidence', () => {
  const cut: Cut = { event: 'cancelled', at: 2000, attempt: 2, path: 'drafts/ch01-draft.md' };

  it('(a journal before exits recorded the file) a clean-ending file unchanged since its writer was cancelled is truncated, and says why in words', () => {
    expect(triageUnmarked(facts({})).verdict).toBe('maybe_complete');
    const t = triageUnmarked(facts({}), cut);
    expect(t.verdict).toBe('truncated');
    const hhmm = `${String(new Date(2000).getHours()).padStart(2, '0')}:${String(new Date(2000).getMinutes()).padStart(2, '0')}`;
    expect(t.reason).toBe(`cut when its writer was cancelled at ${hhmm} (attempt 2, journal): 400 characters, no marker, unchanged since, however its end reads; back up and redo`);
    // Said in the workspace's language too (RESUME.md).
    expect(say(t.why!, 'zh')).toContain('第 2 次尝试');
    expect(say(t.why!, 'ja')).toContain('試行 2');
  });

  it('with the file as the exit recorded it (size and mtime), only that same file is cut; no file at the exit, no cut', () => {
    const stamped: Cut = { ...cut, at: 0, file: { bytes: 400, mtimeMs: 1500 } };
    // The exit's time plays no part: a process clock behind the file system's is no matter.
    expect(triageUnmarked(facts({}), stamped).verdict).toBe('truncated');
    expect(triageUnmarked(facts({ bytes: 401 }), stamped).verdict).toBe('maybe_complete');
    expect(triageUnmarked(facts({ mtimeMs: 1400 }), stamped).verdict).toBe('maybe_complete');
    expect(triageUnmarked(facts({}), { ...cut, file: null }).verdict).toBe('maybe_complete');
    expect(fold(launch('r1', 1), exit('r1', 'CANCELLED', 2000, { output: { bytes: 9, mtimeMs: 8 } })).get('ch01/draft')?.file).toEqual({ bytes: 9, mtimeMs: 8 });
  });

  it('a file changed after that exit (finished by hand), or another output, is judged by its content', () => {
    expect(triageUnmarked(facts({ mtimeMs: 2001 }), cut).verdict).toBe('maybe_complete');
    expect(triageUnmarked(facts({ path: 'drafts/ch01-other.md' }), cut).verdict).toBe('maybe_complete');
  });
});

describe('readCuts: bounded, cached by the journal\'s inode and offset', () => {
  const roots: string[] = [];
  afterEach(() => {
    for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
  });
  const line = (e: JournalEvent): string => `${JSON.stringify(e)}\n`;

  it('reads only what the journal gained; a torn last line waits for its end; a replaced journal is read anew', async () => {
    const root = tempDir('checkroom-cuts-');
    roots.push(root);
    mkdirSync(join(root, '.checkroom'));
    const j = join(root, '.checkroom', 'journal.jsonl');
    const abs = (e: JournalEvent): JournalEvent => (e.type === 'launch' ? { ...e, cwd: root, outputPath: join(root, 'drafts', 'ch01-draft.md') } : e);
    writeFileSync(j, line(abs(launch('r1', 1))));
    expect((await readCuts(root, { read: true, write: true })).size).toBe(0);
    const cache = join(root, CUT_CACHE_FILE);
    expect(existsSync(cache)).toBe(true);
    // Torn: the exit's line is not finished yet.
    const e = line(exit('r1', 'CANCELLED'));
    appendFileSync(j, e.slice(0, 40));
    expect((await readCuts(root, { read: true, write: true })).size).toBe(0);
    appendFileSync(j, e.slice(40));
    expect((await readCuts(root, { read: true, write: true })).get('ch01/draft')).toEqual({ event: 'cancelled', at: 2000, attempt: 1, path: 'drafts/ch01-draft.md' });
    // The cache holds the fold: a lie planted in it is served while the journal is unchanged…
    const planted = JSON.parse(readFileSync(cache, 'utf8'));
    planted.state.cuts['ch01/draft'].event = 'reaped';
    writeFileSync(cache, JSON.stringify(planted));
    expect((await readCuts(root, { read: true, write: true })).get('ch01/draft')?.event).toBe('reaped');
    // …and gone once the journal is another file (archived and started again; tmpfs may give
    // it the same inode, and it may be longer than the offset read to).
    rmSync(j);
    writeFileSync(j, line(abs(launch('r9', 1))) + line(exit('r9', 'STALLED', 2000, { error: 'stopped at the overall timeout' })));
    expect(statSync(j).size).toBeGreaterThan(planted.offset);
    expect((await readCuts(root, { read: true, write: true })).get('ch01/draft')?.event).toBe('timed_out');
  });
});
