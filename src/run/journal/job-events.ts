// The journal's record of a cluster job's life apart from its attempt (docs/scale-out.md,
// Queue time and Accounting): `started` when the scheduler actually ran it (its submit and
// start times and its node, from scontrol), `finished` once per finished job with Slurm's
// accounting (sacct) or why there is none ("accounting is off"). Kept apart from journal.ts
// so the seam there is one line. Scheduler words are sanitized at the journal's edge.

export interface JobJournalEvent {
  v: 1;
  at: number;
  type: 'job';
  phase: 'started' | 'finished';
  runId: string;
  unit: string;
  step: string;
  executor: string;
  jobId: string;
  /** The node (or node list) the job ran on; null when the scheduler did not say. */
  node: string | null;
  /** Epoch ms, the scheduler's clock; null: not known. */
  submitAt?: number | null;
  startAt?: number | null;
  endAt?: number | null;
  /** startAt − submitAt: how long the job waited in the queue. */
  queueWaitMs?: number | null;
  // ── finished only ──
  /** `sacct`: the fields below are Slurm's accounting; `off`: none is configured, `note` says what sacct answered. */
  accounting?: 'sacct' | 'off';
  state?: string;
  elapsedMs?: number | null;
  maxRssKiB?: number | null;
  exitCode?: string;
  note?: string;
}

export const JOB_EVENT_FIELDS = {
  job: { phase: 's', runId: 's', unit: 's', step: 's', executor: 's', jobId: 's' },
} as const;
