import { describe, expect, it } from 'vitest';
import { appendJournal, readJournal, type NewJournalEvent } from '../../../../src/run/journal/journal.js';
import { LedgerFold, replayJournal } from '../../../../src/run/journal/ledger-fold.js';
import { CELL_JOBS_KEPT } from '../../../../src/run/journal/job-fold.js';
import { jobEventOf } from '../../../../src/run/supervisor/job-journal.js';
import { tempDir } from '../../../helpers/workspace.js';

// A cell's cluster jobs folded from a real journal (issue 22 items 1, 2, 6): the `job`
// records a handle's facts become (job-journal.ts), validated and read back like every line,
// and the exit of the same run giving the run time without the queue wait.

const cfg = { breaker: { threshold: 5, cooldownMs: 1_000, maxCooldownMs: 8_000 }, limits: { maxLaunches: 99, maxConsecutiveFailures: 99 } };
const T = 1_796_195_000_000;
const ids = (n: number) => ({ runId: `r${n}`, unit: 'ch01', step: 'research', executor: 'slurm', jobId: String(40 + n) });
const launch = (n: number): NewJournalEvent => ({ type: 'launch', at: T + n * 100_000, runId: `r${n}`, unit: 'ch01', step: 'research', agent: 'researcher', attempt: n, argv: ['w'], cwd: '/w', logPath: '/w/l', pid: null, procStart: null, outputPath: null, executor: 'slurm', jobId: String(40 + n) });
const exit = (n: number, cls: 'INFRA' | 'SUCCESS', durationMs: number, queueWaitMs?: number): NewJournalEvent => ({
  type: 'exit', at: T + n * 100_000 + durationMs, runId: `r${n}`, unit: 'ch01', step: 'research', agent: 'researcher', exitCode: 0, signal: null, class: cls, markerFound: cls === 'SUCCESS', cmdFp: 'c', errFp: '', keywords: [], errorTail: [], durationMs, ...(queueWaitMs === undefined ? {} : { queueWaitMs }),
});

describe('a cell\'s cluster jobs in the ledger', () => {
  it('started, exited and accounted: node, queue wait, run time without it, sacct\'s figures; accounting off says so', async () => {
    const root = tempDir('checkroom-job-fold-');
    const account = { jobId: '41', state: 'NODE_FAIL', elapsedMs: 27_000, maxRssKiB: null, exitCode: '0:0', node: 'n1', submitAt: T, startAt: T + 2_000, endAt: T + 29_000 };
    const events: NewJournalEvent[] = [
      launch(1),
      jobEventOf({ phase: 'started', job: { node: 'n1', submitAt: T, startAt: T + 2_000, queueWaitMs: 2_000 } }, ids(1), T + 2_500),
      exit(1, 'INFRA', 30_000, 2_000),
      jobEventOf({ phase: 'finished', job: { accounting: 'sacct', account } }, ids(1), T + 31_000),
      launch(2),
      jobEventOf({ phase: 'started', job: { node: 'n2', submitAt: T + 200_000, startAt: T + 205_000, queueWaitMs: 5_000 } }, ids(2), T + 205_500),
      exit(2, 'SUCCESS', 17_000, 5_000),
      jobEventOf({ phase: 'finished', job: { accounting: 'off', note: 'sacct: Slurm accounting storage is disabled', node: 'n2' } }, ids(2), T + 218_000),
    ];
    for (const e of events) await appendJournal(root, e);
    const read = await readJournal(root);
    expect(read.warnings).toEqual([]);
    const jobs = replayJournal(read.events, T + 300_000, cfg).cells['ch01/research']!.jobs;
    expect(jobs).toEqual([
      { runId: 'r1', executor: 'slurm', jobId: '41', node: 'n1', queueWaitMs: 2_000, runMs: 28_000, class: 'INFRA', account: { accounting: 'sacct', state: 'NODE_FAIL', elapsedMs: 27_000, maxRssKiB: null, exitCode: '0:0' } },
      { runId: 'r2', executor: 'slurm', jobId: '42', node: 'n2', queueWaitMs: 5_000, runMs: 12_000, class: 'SUCCESS', account: { accounting: 'off', note: 'sacct: Slurm accounting storage is disabled' } },
    ]);
  });

  it('a job record without its required fields is refused at the journal\'s edge', async () => {
    const root = tempDir('checkroom-job-fold-bad-');
    await appendJournal(root, launch(1));
    await appendJournal(root, { type: 'job', phase: 'started', at: T, runId: 'r1', unit: 'ch01', step: 'research', executor: 'slurm', node: 'n1' } as unknown as NewJournalEvent);
    const read = await readJournal(root);
    expect(read.events.map((e) => e.type)).toEqual(['launch']);
    expect(read.warnings.join('\n')).toMatch(/job event with bad field "jobId"/);
  });

  it('keeps the latest jobs only, and a folded ledger handed out is never changed by a later job record', () => {
    const events = Array.from({ length: CELL_JOBS_KEPT + 2 }, (_, i) => i + 1).flatMap((n) => [
      { ...launch(n), v: 1 as const },
      { ...jobEventOf({ phase: 'started', job: { node: `n${n}`, submitAt: T, startAt: T, queueWaitMs: 0 } }, ids(n), T), v: 1 as const },
      { ...exit(n, 'SUCCESS', 1_000, 0), v: 1 as const },
    ]) as Parameters<typeof replayJournal>[0];
    const all = replayJournal(events, T, cfg).cells['ch01/research']!.jobs;
    expect(all.map((j) => j.jobId)).toEqual(Array.from({ length: CELL_JOBS_KEPT }, (_, i) => String(40 + 3 + i)));
    const fold = new LedgerFold(cfg).apply(events);
    const before = fold.at(T).cells['ch01/research']!;
    const seen = JSON.stringify(before.jobs);
    const last = CELL_JOBS_KEPT + 2;
    fold.apply([{ ...jobEventOf({ phase: 'finished', job: { accounting: 'off', note: 'sacct: x', node: 'n9' } }, ids(last), T), v: 1 } as Parameters<typeof replayJournal>[0][number]]);
    expect(JSON.stringify(before.jobs)).toBe(seen);
    expect(fold.at(T).cells['ch01/research']!.jobs.at(-1)).toMatchObject({ node: 'n9', account: { accounting: 'off' } });
  });
});
