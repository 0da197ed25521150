import type { AgentDef, ExecutorName } from '../../pipeline/config-types.js';
import type { LiveRun } from '../journal/ledger.js';
import type { ProcessSpec, RunHandle } from '../types.js';

// The executor seam (issue 12): where an agent runs — a process group here, a Slurm job, a
// Kubernetes Job. The supervisor only starts, watches (through the RunHandle), cancels
// (handle.cancel) and, after a restart, adopts; classifying, counting and proving by marker
// stay above it, the same for every executor (STYLE.md: an executor per place agents run).

export interface ExecutorSpec extends ProcessSpec {
  /** Workspace root, absolute. */
  root: string;
  unit: string;
  step: string;
  attempt: number;
  agent: AgentDef;
  /**
   * The disk proves the step done (its marker is the last line). A job the scheduler still
   * shows RUNNING after that counts as done by the marker (issue 12: Slurm kept jobs
   * RUNNING ~20 s after their output carried the marker).
   */
  proven(): boolean;
}

/** A launch of an earlier checkroom with no exit in the journal, and the job that runs it. */
export interface AdoptRecord {
  run: LiveRun;
  jobId: string;
}

export interface Executor {
  readonly name: ExecutorName;
  /** Submit or spawn. Never rejects: a failed submission resolves the handle's result. */
  start(spec: ExecutorSpec): Promise<RunHandle>;
  /** Watch a job an earlier checkroom started instead of launching it twice. Executors
   *  whose runs die with checkroom (local: reaped on restart) have none. */
  adopt?(rec: AdoptRecord, spec: ExecutorSpec): Promise<RunHandle>;
}

/** The job of a journalled launch, when an executor other than local ran it. */
export const jobOf = (run: LiveRun): { executor: ExecutorName; id: string } | null =>
  run.executor && run.executor !== 'local' && typeof run.jobId === 'string' && run.jobId !== '' ? { executor: run.executor, id: run.jobId } : null;
