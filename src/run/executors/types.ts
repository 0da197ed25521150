import type { z } from 'zod';
import type { AgentDef, ExecutorName } from '../../pipeline/config/types.js';
import type { SchemaKit } from '../../pipeline/schema.js';
import type { LiveRun } from '../journal/ledger.js';
import type { ProcessSpec, RunHandle } from '../types.js';
import type { AttemptResources } from '../policy/memory-ladder.js';

// The executor seam (docs/architecture.md, How to add): where an agent runs — a process group
// here, a Slurm job, a Kubernetes Job. The supervisor only starts, watches (through the
// RunHandle), cancels (handle.cancel) and, after a restart, adopts; classifying, counting and
// proving by marker stay above it, the same for every executor (STYLE.md: an executor per
// place agents run). Its file also carries its options in checkroom.yaml and what the Sources
// view and recover ask of its scheduler.

/** One job of this workspace as its scheduler lists it. */
export interface SchedulerJob {
  id: string;
  state: string;
  runId: string;
  unit: string;
  step: string;
}

/** An executor's options mapping, at the top of checkroom.yaml (every agent) and per agent (wins). */
export interface ExecutorOptions<O = unknown> {
  /** The mapping's key, and the resolved agent's field that holds the options (`slurm`). */
  key: string;
  /** The mapping's keys, built from the kit (the file never loads zod itself). */
  schema(kit: SchemaKit): z.ZodType;
  /** The options with the defaults filled in, from the top-level mapping and the agent's own. */
  resolve(top: Record<string, unknown> | undefined, own: Record<string, unknown> | undefined): O;
}

/** What the Sources view, the room's scheduler check and `recover` ask of a place that queues jobs. */
export interface SchedulerHook {
  /** This workspace's jobs as the scheduler lists them now, or why it could not be asked. Never rejects. */
  jobs(root: string, agent: AgentDef): Promise<SchedulerJob[] | { error: string }>;
  /** How a journalled run id appears in a job (a label value may be sanitized); absent: as it is. */
  runIdOf?(runId: string): string;
  /** The operator's command that ends a job, said in the findings ("scancel 12"). */
  cancel(jobId: string): string;
}

export interface ExecutorSpec extends ProcessSpec {
  /** Workspace root, absolute. */
  root: string;
  unit: string;
  step: string;
  attempt: number;
  agent: AgentDef;
  /** What this attempt may use (docs/scale-out.md, Resources): each executor maps it; absent: none asked. */
  resources?: AttemptResources;
  /** Names in `env` that are secrets: never on a command line, in a submitted environment or a manifest (docs/scale-out.md, Secrets). */
  secretNames?: string[];
  /** The names `secrets:` declares (a Kubernetes Job's secretKeyRef). */
  declaredSecrets?: string[];
  /**
   * The disk proves the step done (its marker is the last line). A job the scheduler still
   * shows RUNNING after that counts as done by the marker (Slurm kept jobs
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
  /** Its options in checkroom.yaml; absent: it has none (local). */
  readonly options?: ExecutorOptions;
  /** Present for a place with a scheduler: its jobs become a fourth recovery source. */
  readonly scheduler?: SchedulerHook;
  /** Cells of this agent that may be in flight at once; absent: its concurrency. An executor
   *  that queues a batch as one array admits the batch and throttles it itself (docs/scale-out.md, Arrays). */
  admits?(agent: AgentDef): number;
  /** The agent's concurrency changed: carry it to what already runs (a live array's `%T`). Never rejects. */
  throttle?(root: string, agent: AgentDef, concurrency: number): Promise<string[]>;
}

/** The job of a journalled launch, when an executor other than local ran it. */
export const jobOf = (run: LiveRun): { executor: ExecutorName; id: string } | null =>
  run.executor && run.executor !== 'local' && typeof run.jobId === 'string' && run.jobId !== '' ? { executor: run.executor, id: run.jobId } : null;
