import { execa } from 'execa';
import type { AgentDef, KubernetesOptions } from '../../pipeline/config/types.js';
import { DEFAULT_KUBERNETES } from '../../pipeline/defaults.js';
import type { SchemaKit } from '../../pipeline/schema.js';
import { writeFileAtomic } from '../../fs/atomic-write.js';
import { redactSecrets } from '../../text/redact.js';
import { refusedHandle, watchJob, type JobProbe } from './job-handle.js';
import { workspaceTag } from './slurm-wrapper.js';
import { kubeConfigProblem, kubeJobManifest, kubeJobName, LABEL, labelValue } from './kube-manifest.js';
import { kubeSchedulerJobs, kubeVerdict, type KubeJob, type KubePod } from './kube-state.js';
import type { Executor, ExecutorOptions, ExecutorSpec, SchedulerHook } from './types.js';

// Agents as Kubernetes Jobs through kubectl (docs/scale-out.md). Not run against a live cluster here
// (none can run on this machine): the manifests are validated with kubectl --dry-run=client
// and the state mapping is tested on API-reference shapes (test/core/run/executors/kubernetes.test.ts). The
// log is copied into .checkroom/runs/ on every poll while the pod exists, because a pod
// cleaned up takes its log with it.

const kubectlAs = async (agent: AgentDef, env: Record<string, string>, args: string[], input?: string): Promise<{ code: number; out: string; err: string }> => {
  const k = agent.kubernetes;
  const ns = k.namespace ? ['--namespace', k.namespace] : [];
  const r = await execa(k.kubectl[0]!, [...k.kubectl.slice(1), ...ns, ...args], { reject: false, shell: false, timeout: 60_000, env, extendEnv: false, ...(input !== undefined ? { input } : { stdin: 'ignore' }) });
  return { code: r.exitCode ?? 127, out: String(r.stdout ?? ''), err: r.exitCode === undefined ? String(r.message) : String(r.stderr ?? '') };
};

const kubectl = (spec: ExecutorSpec, args: string[], input?: string) => kubectlAs(spec.agent, spec.env, args, input);

const probeOf = (spec: ExecutorSpec, name: string): JobProbe => {
  let pendingSince: number | null = null;
  let verdict = '';
  const copyLogs = async (): Promise<void> => {
    const r = await kubectl(spec, ['logs', `job/${name}`, '--all-containers=true']);
    if (r.code === 0 && r.out !== '') await writeFileAtomic(spec.logPath, redactSecrets(r.out), [spec.root]).catch(() => undefined);
  };
  return {
    executor: 'kubernetes',
    id: name,
    async look() {
      const job = await kubectl(spec, ['get', 'job', name, '-o', 'json', '--ignore-not-found']);
      if (job.code !== 0) return { kind: 'unreachable', why: `kubectl: ${job.err.split('\n')[0]}` };
      const pods = await kubectl(spec, ['get', 'pods', '-l', `job-name=${name}`, '-o', 'json']);
      const items = pods.code === 0 ? ((JSON.parse(pods.out) as { items?: KubePod[] }).items ?? []) : [];
      await copyLogs();
      const look = kubeVerdict(job.out.trim() === '' ? null : (JSON.parse(job.out) as KubeJob), items, pendingSince === null ? 0 : Date.now() - pendingSince);
      if (look.kind === 'waiting') pendingSince ??= Date.now();
      else pendingSince = null;
      if (look.kind === 'ended') verdict = look.end.how;
      return look;
    },
    async stop() {
      return (await kubectl(spec, ['delete', 'job', name, '--wait=false', '--ignore-not-found'])).code === 0;
    },
    async close() {
      await copyLogs();
      // A Job stuck on an image or a node would keep retrying its pod: end it.
      if (verdict === 'infra' || verdict === 'timeout') await kubectl(spec, ['delete', 'job', name, '--wait=false', '--ignore-not-found']);
    },
  };
};

/** `kubernetes:` in checkroom.yaml: the kubectl prefix, where the Job runs and what it may use. */
const options: ExecutorOptions<KubernetesOptions> = {
  key: 'kubernetes',
  schema: ({ z, text, duration, poll }: SchemaKit) =>
    z.strictObject({
      kubectl: z.array(text, { error: 'an argument array like [kubectl, --context, prod]' }).min(1, { error: 'a non-empty argument array' }).optional(),
      namespace: text.optional(),
      image: text.optional(),
      pvc: text.optional(),
      service_account: text.optional(),
      secret: text.optional(),
      cpu: text.optional(),
      memory: text.optional(),
      poll: poll.optional(),
      infra_timeout: duration(1000).optional(),
    }),
  resolve(top, own) {
    const m = { ...top, ...own } as { kubectl?: string[]; namespace?: string; image?: string; pvc?: string; service_account?: string; secret?: string; cpu?: string; memory?: string; poll?: number; infra_timeout?: number };
    const d = DEFAULT_KUBERNETES;
    return {
      kubectl: [...(m.kubectl ?? d.kubectl)],
      namespace: m.namespace ?? d.namespace,
      image: m.image ?? d.image,
      pvc: m.pvc ?? d.pvc,
      serviceAccount: m.service_account ?? d.serviceAccount,
      secret: m.secret ?? d.secret,
      cpu: m.cpu ?? d.cpu,
      memory: m.memory ?? d.memory,
      pollMs: m.poll ?? d.pollMs,
      infraTimeoutMs: m.infra_timeout ?? d.infraTimeoutMs,
    };
  },
};

/** The Jobs labelled with this workspace; the agent's env over ours, as for Slurm's commands. */
const scheduler: SchedulerHook = {
  async jobs(root, agent) {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
    const r = await kubectlAs(agent, Object.assign(env, agent.env), ['get', 'jobs', '-l', `${LABEL.workspace}=${workspaceTag(root)}`, '-o', 'json']);
    if (r.code !== 0) return { error: (r.err || `kubectl exited ${r.code}`).split('\n')[0]! };
    return kubeSchedulerJobs(JSON.parse(r.out));
  },
  runIdOf: labelValue,
  cancel: (id) => `kubectl delete job ${id}`,
};

export const kubernetesExecutor: Executor = {
  name: 'kubernetes',
  options,
  scheduler,
  async start(spec) {
    const problem = kubeConfigProblem(spec);
    if (problem) return refusedHandle(spec, { exitCode: 2, spawnError: null, lines: [`invalid argument: ${problem}`] });
    const name = kubeJobName(spec.runId);
    const r = await kubectl(spec, ['create', '-f', '-', '-o', 'name'], JSON.stringify(kubeJobManifest({ spec, name })));
    if (r.code !== 0) return refusedHandle(spec, { exitCode: r.code, spawnError: r.code === 127 ? 'ENOENT' : null, lines: [...r.err.split('\n').filter(Boolean), `[checkroom] kubectl create refused the Job (exit ${r.code})`] });
    return watchJob(spec, probeOf(spec, name), { pollMs: spec.agent.kubernetes.pollMs, from: 0, infraTimeoutMs: spec.agent.kubernetes.infraTimeoutMs });
  },
  async adopt(rec, spec) {
    return watchJob(spec, probeOf(spec, rec.jobId), { pollMs: spec.agent.kubernetes.pollMs, from: 0, infraTimeoutMs: spec.agent.kubernetes.infraTimeoutMs });
  },
};
