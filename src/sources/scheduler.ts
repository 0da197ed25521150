import type { ExecutorName, WorkspaceConfig } from '../pipeline/config/types.js';
import type { Cell } from '../types.js';
import { executorNamed, runIdsAsJobs, scheduledAgent } from '../run/executors/registry.js';
import type { SchedulerJob } from '../run/executors/types.js';
import { readJournal } from '../run/journal/journal.js';

// The scheduler as a fourth recovery source (docs/scale-out.md): this workspace's jobs against
// its cells. The disk still decides what is done; the scheduler tells what is still running,
// so the three ways they disagree are worth a row each: a job running for a cell the disk
// proves done (it holds a node for nothing), a cell ⏳ with no job behind it (its agent died
// with its job, or never started), and a job no checkroom launch recorded (submitted just
// before a checkroom was killed, or by hand). Which executors have a scheduler, how their
// jobs are listed and ended, each executor's own file says (SchedulerHook).

export type { SchedulerJob } from '../run/executors/types.js';
export { parseJobComment } from '../run/executors/slurm-wrapper.js';
export { kubeSchedulerJobs } from '../run/executors/kube-state.js';

export type SchedulerFindingKind = 'job_for_done_cell' | 'cell_without_job' | 'job_not_launched';

export interface SchedulerFinding {
  kind: SchedulerFindingKind;
  unit: string;
  step: string;
  jobId: string | null;
  note: string;
}

export interface SchedulerSource {
  /** The executor whose scheduler was asked (a row of src/run/executors/registry.ts). */
  executor: ExecutorName;
  /** Jobs of this workspace the scheduler still knows. */
  jobs: SchedulerJob[];
  findings: SchedulerFinding[];
  /** The scheduler could not be asked (squeue failed): nothing is concluded. */
  error: string | null;
}

const ACTIVE = /^(PENDING|RUNNING|CONFIGURING|COMPLETING|SUSPENDED|REQUEUED|SIGNALING|STAGE_OUT)/;

/** Pure: the disagreements between the jobs, the cells and the journal's launches. */
export const schedulerFindings = (
  jobs: readonly SchedulerJob[], cells: readonly Cell[], launched: ReadonlySet<string>, clusterSteps: ReadonlySet<string>,
  cancel: (jobId: string) => string = (id) => `cancel job ${id}`,
): SchedulerFinding[] => {
  const out: SchedulerFinding[] = [];
  const active = jobs.filter((j) => ACTIVE.test(j.state));
  const byCell = new Map(cells.map((c) => [`${c.unit}/${c.step}`, c]));
  for (const j of active) {
    const cell = byCell.get(`${j.unit}/${j.step}`);
    if (!launched.has(j.runId)) {
      out.push({ kind: 'job_not_launched', unit: j.unit, step: j.step, jobId: j.id, note: `job ${j.id} (${j.state}) was submitted for this cell, but no launch in the journal records it; ${cancel(j.id)} unless someone started it by hand` });
    } else if (cell?.status === 'done') {
      out.push({ kind: 'job_for_done_cell', unit: j.unit, step: j.step, jobId: j.id, note: `job ${j.id} is still ${j.state}, but the marker proves the cell done; it holds a node for nothing (${cancel(j.id)})` });
    }
  }
  const running = new Set(active.map((j) => `${j.unit}/${j.step}`));
  for (const c of cells) {
    if (c.checkpoint !== 'in_progress' || c.status === 'done' || !clusterSteps.has(c.step)) continue;
    if (!running.has(`${c.unit}/${c.step}`)) out.push({ kind: 'cell_without_job', unit: c.unit, step: c.step, jobId: null, note: 'checkpoint.md says in progress, but no job of this workspace runs it: relaunch it, or triage its half-product' });
  }
  return out;
};

const clusterStepsOf = (config: WorkspaceConfig, executor: ExecutorName): Set<string> =>
  new Set(config.pipeline.steps.filter((s) => s.agent && config.agents[s.agent]?.executor === executor).map((s) => s.id));

/** Ask the scheduler once, or null when no agent of this workspace runs where a scheduler queues it. */
export async function readScheduler(root: string, config: WorkspaceConfig, cells: readonly Cell[]): Promise<SchedulerSource | null> {
  const first = scheduledAgent(config);
  if (!first) return null;
  const executor = first.name;
  const hook = executorNamed(executor).scheduler!;
  const { events } = await readJournal(root);
  const runIds = events.flatMap((e) => (e.type === 'launch' ? [e.runId] : []));
  const jobs = await hook.jobs(root, first.agent).catch((err: Error) => ({ error: err.message }));
  if ('error' in jobs) return { executor, jobs: [], findings: [], error: jobs.error };
  const launched = runIdsAsJobs(hook, runIds);
  return { executor, jobs, findings: schedulerFindings(jobs, cells, launched, clusterStepsOf(config, executor), hook.cancel), error: null };
}
