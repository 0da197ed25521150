import { execa } from 'execa';
import type { ExecutorName, WorkspaceConfig } from '../pipeline/config-types.js';
import { LABEL, labelValue } from '../run/executors/kube-manifest.js';
import type { Cell } from '../types.js';
import { listJobs } from '../run/executors/slurm-cli.js';
import { slurmEnvOf } from '../run/executors/slurm.js';
import { workspaceTag } from '../run/executors/slurm-wrapper.js';
import { readJournal } from '../run/journal/journal.js';

// The scheduler as a fourth recovery source (issue 12): this workspace's jobs against its
// cells. The disk still decides what is done; the scheduler tells what is still running, so
// the three ways they disagree are worth a row each: a job running for a cell the disk
// proves done (it holds a node for nothing), a cell ⏳ with no job behind it (its agent died
// with its job, or never started), and a job no checkroom launch recorded (submitted just
// before a checkroom was killed, or by hand).

export interface SchedulerJob {
  id: string;
  state: string;
  runId: string;
  unit: string;
  step: string;
}

export type SchedulerFindingKind = 'job_for_done_cell' | 'cell_without_job' | 'job_not_launched';

export interface SchedulerFinding {
  kind: SchedulerFindingKind;
  unit: string;
  step: string;
  jobId: string | null;
  note: string;
}

export interface SchedulerSource {
  executor: 'slurm' | 'kubernetes';
  /** Jobs of this workspace the scheduler still knows. */
  jobs: SchedulerJob[];
  findings: SchedulerFinding[];
  /** The scheduler could not be asked (squeue failed): nothing is concluded. */
  error: string | null;
}

const ACTIVE = /^(PENDING|RUNNING|CONFIGURING|COMPLETING|SUSPENDED|REQUEUED|SIGNALING|STAGE_OUT)/;

/** `checkroom ws=<tag> run=<runId> cell=<unit>/<step>` (slurm.ts jobComment) → its parts. */
export const parseJobComment = (comment: string): { ws: string; runId: string; unit: string; step: string } | null => {
  const m = /^checkroom ws=(\S+) run=(\S+) cell=([^/\s]+)\/(\S+)/.exec(comment);
  return m ? { ws: m[1]!, runId: m[2]!, unit: m[3]!, step: m[4]! } : null;
};

/** Pure: the disagreements between the jobs, the cells and the journal's launches. */
export const schedulerFindings = (jobs: readonly SchedulerJob[], cells: readonly Cell[], launched: ReadonlySet<string>, clusterSteps: ReadonlySet<string>): SchedulerFinding[] => {
  const out: SchedulerFinding[] = [];
  const active = jobs.filter((j) => ACTIVE.test(j.state));
  const byCell = new Map(cells.map((c) => [`${c.unit}/${c.step}`, c]));
  for (const j of active) {
    const cell = byCell.get(`${j.unit}/${j.step}`);
    if (!launched.has(j.runId)) {
      out.push({ kind: 'job_not_launched', unit: j.unit, step: j.step, jobId: j.id, note: `job ${j.id} (${j.state}) was submitted for this cell, but no launch in the journal records it; scancel ${j.id} unless someone started it by hand` });
    } else if (cell?.status === 'done') {
      out.push({ kind: 'job_for_done_cell', unit: j.unit, step: j.step, jobId: j.id, note: `job ${j.id} is still ${j.state}, but the marker proves the cell done; it holds a node for nothing (scancel ${j.id})` });
    }
  }
  const running = new Set(active.map((j) => `${j.unit}/${j.step}`));
  for (const c of cells) {
    if (c.checkpoint !== 'in_progress' || c.status === 'done' || !clusterSteps.has(c.step)) continue;
    if (!running.has(`${c.unit}/${c.step}`)) out.push({ kind: 'cell_without_job', unit: c.unit, step: c.step, jobId: null, note: 'checkpoint.md says in progress, but no job of this workspace runs it: relaunch it, or triage its half-product' });
  }
  return out;
};

/** `kubectl get jobs -l checkroom.io/workspace=<tag> -o json` → this workspace's jobs (pure).
 *  Label values are sanitized (kube-manifest.ts labelValue): run ids are compared that way. */
export const kubeSchedulerJobs = (list: { items?: { metadata?: { name?: string; labels?: Record<string, string> }; status?: { active?: number; conditions?: { type?: string; status?: string }[] } }[] }): SchedulerJob[] =>
  (list.items ?? []).flatMap((j) => {
    const l = j.metadata?.labels ?? {};
    const [unit, step, runId, name] = [l[LABEL.unit], l[LABEL.step], l[LABEL.run], j.metadata?.name];
    if (!unit || !step || !runId || !name) return [];
    const done = j.status?.conditions?.find((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');
    const state = done ? (done.type === 'Complete' ? 'COMPLETED' : 'FAILED') : (j.status?.active ?? 0) > 0 ? 'RUNNING' : 'PENDING';
    return [{ id: name, state, runId, unit, step }];
  });

const clusterStepsOf = (config: WorkspaceConfig, executor: ExecutorName): Set<string> =>
  new Set(config.pipeline.steps.filter((s) => s.agent && config.agents[s.agent]?.executor === executor).map((s) => s.id));

/** Ask the scheduler once, or null when no agent of this workspace runs on a cluster. */
export async function readScheduler(root: string, config: WorkspaceConfig, cells: readonly Cell[]): Promise<SchedulerSource | null> {
  const agents = Object.values(config.agents).filter((a) => a.executor !== 'local');
  const first = agents[0];
  if (!first) return null;
  const executor = first.executor as 'slurm' | 'kubernetes';
  const tag = workspaceTag(root);
  const { events } = await readJournal(root);
  const runIds = events.flatMap((e) => (e.type === 'launch' ? [e.runId] : []));
  let jobs: SchedulerJob[];
  if (executor === 'slurm') {
    const rows = await listJobs(slurmEnvOf(first));
    if ('error' in rows) return { executor, jobs: [], findings: [], error: rows.error };
    jobs = rows.flatMap((r) => {
      const c = parseJobComment(r.comment);
      return c && c.ws === tag ? [{ id: r.id, state: r.state, runId: c.runId, unit: c.unit, step: c.step }] : [];
    });
  } else {
    const k = first.kubernetes;
    const r = await execa(k.kubectl[0]!, [...k.kubectl.slice(1), ...(k.namespace ? ['--namespace', k.namespace] : []), 'get', 'jobs', '-l', `${LABEL.workspace}=${tag}`, '-o', 'json'], { reject: false, shell: false, timeout: 60_000, env: slurmEnvOf(first), extendEnv: false });
    if (r.exitCode !== 0) return { executor, jobs: [], findings: [], error: String(r.stderr || r.message).split('\n')[0]! };
    jobs = kubeSchedulerJobs(JSON.parse(String(r.stdout)));
  }
  const launched = new Set(executor === 'slurm' ? runIds : runIds.map(labelValue));
  return { executor, jobs, findings: schedulerFindings(jobs, cells, launched, clusterStepsOf(config, executor)), error: null };
}
