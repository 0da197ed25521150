import type { CellJob, CellLedger } from './ledger.js';
import type { JobJournalEvent } from './job-events.js';
import type { ExitEvent } from './journal.js';
import { attemptDuration } from './run-duration.js';

// A cell's cluster jobs from the journal (docs/scale-out.md, Queue time and Accounting): the
// `job` records and the exit of the same run, folded into the cell's ledger. Pure steps over
// one cell; ledger-fold.ts calls them. Only the latest jobs are kept: a cell's detail shows
// the job that runs now and the ones just before it (the node that died under it).

export const CELL_JOBS_KEPT = 4;

const jobOf = (c: CellLedger, e: Pick<JobJournalEvent, 'runId' | 'executor' | 'jobId'>): CellJob => {
  const found = c.jobs.find((j) => j.runId === e.runId);
  if (found) return found;
  const j: CellJob = { runId: e.runId, executor: e.executor, jobId: e.jobId, node: null, queueWaitMs: null, runMs: null, class: null, account: null };
  c.jobs.push(j);
  if (c.jobs.length > CELL_JOBS_KEPT) c.jobs.splice(0, c.jobs.length - CELL_JOBS_KEPT);
  return j;
};

/** `c` is the fold's own copy of the cell: its jobs are copied before they change. */
export const foldJob = (c: CellLedger, e: JobJournalEvent): void => {
  c.jobs = c.jobs.map((j) => ({ ...j }));
  const j = jobOf(c, e);
  j.node = e.node ?? j.node;
  if (typeof e.queueWaitMs === 'number') j.queueWaitMs = e.queueWaitMs;
  if (e.phase !== 'finished') return;
  j.account =
    e.accounting === 'sacct'
      ? { accounting: 'sacct', state: e.state ?? '', elapsedMs: e.elapsedMs ?? null, maxRssKiB: e.maxRssKiB ?? null, exitCode: e.exitCode ?? '' }
      : { accounting: 'off', note: e.note ?? 'accounting is off' };
};

/** The exit of a run whose job the cell knows: its run time (without the queue wait) and class. */
export const foldJobExit = (c: CellLedger, e: ExitEvent): void => {
  if (!c.jobs.some((j) => j.runId === e.runId)) return;
  const d = attemptDuration(e);
  c.jobs = c.jobs.map((j) => (j.runId === e.runId ? { ...j, runMs: d.runMs, class: e.class, queueWaitMs: d.queueWaitMs ?? j.queueWaitMs } : j));
};
