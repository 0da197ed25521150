import type { JobFact } from '../executors/job-facts.js';
import type { JobJournalEvent } from '../journal/job-events.js';
import type { NewJournalEvent } from '../journal/journal.js';
import type { RunHandle } from '../types.js';

// A cluster job's facts into the journal (docs/scale-out.md, Queue time and Accounting): one
// `job` record when it started, one when it finished. A launched run and an adopted one come
// through here alike. The subscription ends itself after the finished record, which comes
// after the exit (the scheduler's accounting lags the job's end).

type JobIds = Pick<JobJournalEvent, 'runId' | 'unit' | 'step' | 'executor' | 'jobId'>;

/** The journal record of one fact (pure). */
export const jobEventOf = (f: JobFact, ids: JobIds, at: number): NewJournalEvent => {
  if (f.phase === 'started') return { type: 'job', phase: 'started', at, ...ids, ...f.job };
  const j = f.job;
  if (j.accounting === 'off') return { type: 'job', phase: 'finished', at, ...ids, node: j.node, accounting: 'off', note: j.note };
  const a = j.account;
  return {
    type: 'job',
    phase: 'finished',
    at,
    ...ids,
    node: a.node,
    accounting: 'sacct',
    state: a.state,
    elapsedMs: a.elapsedMs,
    maxRssKiB: a.maxRssKiB,
    exitCode: a.exitCode,
    submitAt: a.submitAt,
    startAt: a.startAt,
    endAt: a.endAt,
    queueWaitMs: a.submitAt === null || a.startAt === null ? null : Math.max(0, a.startAt - a.submitAt),
  };
};

/** `started`: whether the journal already holds this run's start (an adopted job: the checkroom before the restart wrote it), so it is written once. */
export const journalJobFacts = (handle: RunHandle, ids: Omit<JobIds, 'executor' | 'jobId'>, append: (e: NewJournalEvent) => Promise<void>, now: () => number, started: () => boolean = () => false): void => {
  if (!handle.job || !handle.onJob) return;
  const full: JobIds = { ...ids, executor: handle.job.executor, jobId: handle.job.id };
  const off = handle.onJob((f) => {
    if (f.phase !== 'started' || !started()) void append(jobEventOf(f, full, now())).catch(() => undefined);
    if (f.phase === 'finished') off();
  });
};
