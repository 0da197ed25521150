import type { JobAccount } from './sacct.js';

// What a cluster job tells apart from its attempt's exit (docs/scale-out.md, Queue time and
// Accounting): when it actually started and where, and, once over, the scheduler's accounting
// of it. A handle hands each fact once (RunHandle.onJob); the supervisor journals it.

export interface JobStarted {
  node: string | null;
  submitAt: number | null;
  startAt: number | null;
  /** startAt − submitAt, never negative; null when either is unknown. */
  queueWaitMs: number | null;
}

export type JobFinished = { accounting: 'sacct'; account: JobAccount } | { accounting: 'off'; note: string; node: string | null };

export type JobFact = { phase: 'started'; job: JobStarted } | { phase: 'finished'; job: JobFinished };

export const queueWaitOf = (submitAt: number | null, startAt: number | null): number | null =>
  submitAt === null || startAt === null ? null : Math.max(0, startAt - submitAt);

/** `scontrol show job -o` → when the job was submitted and started, and its node. */
export const startedOf = (shown: string, parseTime: (t: string | undefined) => number | null): JobStarted => {
  const field = (k: string): string | undefined => new RegExp(`(?:^|\\s)${k}=(\\S+)`).exec(shown)?.[1];
  const submitAt = parseTime(field('SubmitTime'));
  const startAt = parseTime(field('StartTime'));
  const nodes = field('NodeList');
  return { node: nodes && nodes !== '(null)' ? nodes : null, submitAt, startAt, queueWaitMs: queueWaitOf(submitAt, startAt) };
};
