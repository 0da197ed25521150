import type { JobLook } from './job-decide.js';
import { LABEL } from './kube-manifest.js';
import type { SchedulerJob } from './types.js';

// `kubectl get job -o json` and `kubectl get pods -o json` → what checkroom makes of them
// (docs/scale-out.md), pure. Shapes from the API reference: JobStatus.conditions (Complete, Failed
// with reason DeadlineExceeded / BackoffLimitExceeded), PodStatus.phase, conditions
// (PodScheduled False, reason Unschedulable), containerStatuses[].state.waiting.reason
// (ImagePullBackOff, ErrImagePull) and .terminated (reason OOMKilled, exitCode).
// https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/job-v1/#JobStatus
// https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/pod-v1/#PodStatus

interface Condition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
}
interface ContainerState {
  waiting?: { reason?: string; message?: string };
  running?: object;
  terminated?: { reason?: string; exitCode?: number; message?: string };
}
export interface KubePod {
  status?: { phase?: string; reason?: string; message?: string; conditions?: Condition[]; containerStatuses?: { state?: ContainerState; lastState?: ContainerState }[] };
}
export interface KubeJob {
  status?: { active?: number; succeeded?: number; failed?: number; conditions?: Condition[] };
}

/** Waiting reasons that do not fix themselves: the cluster's fault, not the agent's. */
const INFRA_WAITING = new Set(['ImagePullBackOff', 'ErrImagePull', 'InvalidImageName', 'CreateContainerConfigError', 'CreateContainerError']);
/** Pod-level reasons of a pod the cluster took away. */
const INFRA_POD = new Set(['Evicted', 'NodeLost', 'Preempting', 'Shutdown', 'NodeShutdown', 'Terminated']);
/** Unschedulable may be an autoscaler about to add a node: INFRA only after this long. */
export const UNSCHEDULABLE_LIMIT_MS = 5 * 60_000;

const cond = (list: Condition[] | undefined, type: string): Condition | undefined => list?.find((c) => c.type === type && c.status === 'True');

export const kubeVerdict = (job: KubeJob | null, pods: KubePod[], pendingForMs: number): JobLook => {
  if (!job) return { kind: 'ended', end: { how: 'cancelled', note: 'the Job is gone' }, exitCode: null };
  const pod = pods[pods.length - 1];
  const cs = pod?.status?.containerStatuses?.[0]?.state;
  const terminated = cs?.terminated;
  const exitCode = typeof terminated?.exitCode === 'number' ? terminated.exitCode : null;
  const jc = job.status?.conditions;
  if (cond(jc, 'Complete')) return { kind: 'ended', end: { how: 'exit' }, exitCode: exitCode ?? 0 };
  const failed = cond(jc, 'Failed');
  if (failed?.reason === 'DeadlineExceeded') return { kind: 'ended', end: { how: 'timeout', note: 'Kubernetes DeadlineExceeded: activeDeadlineSeconds passed' }, exitCode };
  if (terminated?.reason === 'OOMKilled') return { kind: 'ended', end: { how: 'oom', note: 'Kubernetes OOMKilled' }, exitCode };
  const podReason = pod?.status?.reason;
  if (podReason && INFRA_POD.has(podReason)) return { kind: 'ended', end: { how: 'infra', note: `Kubernetes ${podReason}${pod?.status?.message ? `: ${pod.status.message}` : ''}` }, exitCode };
  if (cond(pod?.status?.conditions, 'DisruptionTarget')) return { kind: 'ended', end: { how: 'infra', note: 'Kubernetes DisruptionTarget: the pod was preempted or evicted' }, exitCode };
  if (failed) return { kind: 'ended', end: { how: 'exit' }, exitCode: exitCode ?? 1 };
  if (pod?.status?.phase === 'Failed' || pod?.status?.phase === 'Succeeded') return { kind: 'ended', end: { how: 'exit' }, exitCode: exitCode ?? (pod.status.phase === 'Succeeded' ? 0 : 1) };
  const waiting = cs?.waiting?.reason;
  if (waiting && INFRA_WAITING.has(waiting)) return { kind: 'ended', end: { how: 'infra', note: `Kubernetes ${waiting}${cs?.waiting?.message ? `: ${cs.waiting.message}` : ''}` }, exitCode: null };
  const sched = pod?.status?.conditions?.find((c) => c.type === 'PodScheduled' && c.status === 'False');
  if (sched?.reason === 'Unschedulable') {
    if (pendingForMs >= UNSCHEDULABLE_LIMIT_MS) return { kind: 'ended', end: { how: 'infra', note: `Kubernetes Unschedulable: ${sched.message ?? 'no node fits'}` }, exitCode: null };
    return { kind: 'waiting', why: `waiting: Unschedulable${sched.message ? ` (${sched.message})` : ''}` };
  }
  if (!pod || pod.status?.phase === 'Pending') return { kind: 'waiting', why: waiting ? `waiting: ${waiting}` : 'waiting: Pending' };
  return { kind: 'running' };
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
