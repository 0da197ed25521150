import { appendFileSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { writeFileAtomic } from '../../fs/atomic-write.js';
import { redactSecrets } from '../../text/redact.js';
import type { AgentDef, SlurmOptions } from '../../pipeline/config/types.js';
import { DEFAULT_SLURM } from '../../pipeline/defaults.js';
import type { SchemaKit } from '../../pipeline/schema.js';
import { cancelJob, listJobs, queueFor, showJob, submitJob } from './slurm-cli.js';
import { parseExitCode, slurmSignal, slurmTime, slurmVerdict, type SqueueRow } from './slurm-state.js';
import { ensureWrapper, parseJobComment, recordedStatus, secretsPathOf, statusPathOf, workspaceTag } from './slurm-wrapper.js';
import { refusedHandle, watchJob, type JobLook, type JobProbe } from './job-handle.js';
import { tailOffset } from './log-follow.js';
import { slurmFinished, slurmStarted } from './slurm-account.js';
import { parseSlurmTime } from './sacct.js';
import { queueWaitOf, type JobStarted } from './job-facts.js';
import type { Executor, ExecutorOptions, ExecutorSpec, SchedulerHook } from './types.js';
import { assertInside } from '../../fs/confine-path.js';
import { formatMemory } from '../../pipeline/resources.js';
import { holdArray, parseArrayComment, submitInArray, throttleArrays } from './slurm-array.js';
import { readManifest } from './slurm-manifest.js';
import type { RunHandle } from '../types.js';

// Agents as Slurm jobs (docs/scale-out.md): sbatch --parsable runs the fixed wrapper with the argv
// as its arguments; one squeue a poll serves every job of the cluster; scancel stops them;
// a restarted checkroom adopts the journalled job ids instead of submitting twice.

/** Job names and comments say which workspace and run a job belongs to (Sources, adopt). */
export const jobName = (runId: string): string => `checkroom-${runId}`;
export const jobComment = (root: string, spec: { runId: string; unit: string; step: string }): string =>
  `checkroom ws=${workspaceTag(root)} run=${spec.runId} cell=${spec.unit}/${spec.step}`;

/** Slurm reads '%' in --output as a pattern; '%%' is a literal '%'. */
const literalPath = (p: string): string => p.replace(/%/g, '%%');

/** The sbatch arguments of one attempt (pure; tested as is). */
export const sbatchArgs = (spec: ExecutorSpec, wrapper: string, statusFile: string): string[] => {
  const o = spec.agent.slurm;
  const r = spec.resources ?? {};
  const partition = r.partition ?? o.partition;
  const account = r.account ?? o.account;
  return [
    `--job-name=${jobName(spec.runId)}`,
    `--comment=${jobComment(spec.root, spec)}`,
    `--output=${literalPath(spec.logPath)}`,
    '--open-mode=append',
    `--chdir=${spec.cwd}`,
    `--time=${slurmTime(spec.timeoutMs)}`,
    `--signal=${slurmSignal(spec.graceMs)}`,
    // checkroom owns retries: Slurm must not requeue behind its back.
    '--no-requeue',
    ...(partition ? [`--partition=${partition}`] : []),
    ...(account ? [`--account=${account}`] : []),
    // The step's resources (docs/scale-out.md, Resources), the ladder's memory among them.
    ...(r.memoryMiB !== undefined ? [`--mem=${formatMemory(r.memoryMiB)}`] : []),
    ...(r.cpus !== undefined ? [`--cpus-per-task=${r.cpus}`] : []),
    ...(r.gpus !== undefined ? [`--gpus=${r.gpus}`] : []),
    ...o.extraArgs,
    wrapper,
    statusFile,
    ...spec.argv,
  ];
};

/** sbatch's own words for a controller it cannot reach: the cluster's fault, not the agent's. */
const UNREACHABLE = /unable to contact slurm controller|connection refused|socket timed out|Zero Bytes were transmitted/i;

/** A node list as squeue prints it, or null before the job has one. */
const nodeOf = (nodes: string): string | null => (nodes && nodes !== '(null)' && !/^n\/a$/i.test(nodes) ? nodes : null);

/** When and where a running job started, from its poll row; null when the row does not say. */
const startedOfRow = (row: SqueueRow): JobStarted | null => {
  const startAt = parseSlurmTime(row.start);
  if (startAt === null) return null;
  const submitAt = parseSlurmTime(row.submit);
  return { node: nodeOf(row.nodes), submitAt, startAt, queueWaitMs: queueWaitOf(submitAt, startAt) };
};

const probeOf = (spec: ExecutorSpec, id: string): JobProbe => {
  const env = spec.env;
  let table: Map<string, SqueueRow> | { error: string } | null = null;
  const off = queueFor(env, spec.agent.slurm.pollMs).watch((t) => (table = t));
  let missing = 0;
  let node: string | null = null;
  // The job's last row of the shared poll: its state, and when and where it ran.
  let seen: SqueueRow | null = null;
  const ended = async (state: string, reason: string): Promise<JobLook> => {
    const v = slurmVerdict(state, reason);
    if (v.kind !== 'ended') return v.kind === 'waiting' ? v : { kind: 'running' };
    const rec = await recordedStatus(spec.logPath);
    // scontrol only for what the poll and the wrapper did not say: one squeue per tick stays
    // the cost of any number of jobs (docs/scale-out.md, Arrays).
    const shown = rec && node ? '' : ((await showJob(id, env)) ?? '');
    // A node that died names itself: the cell detail, Health and the journal say which one.
    node = /(?:^|\s)NodeList=(\S+)/.exec(shown)?.[1]?.replace(/^\(null\)$/, '') || node;
    const end = v.end.how === 'infra' && node ? { ...v.end, note: `${v.end.note} on node ${node}` } : v.end;
    return { kind: 'ended', end, exitCode: rec?.code ?? parseExitCode(shown), termed: rec?.termed ?? false };
  };
  return {
    executor: 'slurm',
    id,
    async look() {
      const t = table as Map<string, SqueueRow> | { error: string } | null;
      if (t === null) return { kind: 'unknown', why: 'submitted' };
      if (!(t instanceof Map)) return { kind: 'unreachable', why: `squeue: ${t.error}` };
      const row = t.get(id);
      if (row) {
        missing = 0;
        seen = row;
        node = nodeOf(row.nodes) ?? node;
        return ended(row.state, row.reason);
      }
      // Not listed: purged after MinJobAge, or squeue lagging. Ask once more, then the
      // wrapper's status file (or its absence) and the marker decide.
      if (++missing < 3) return { kind: 'unknown', why: null };
      const shown = await showJob(id, env);
      const state = shown ? /JobState=(\S+)/.exec(shown)?.[1] : undefined;
      if (state) return ended(state, /Reason=(\S+)/.exec(shown!)?.[1] ?? '');
      const rec = await recordedStatus(spec.logPath);
      return { kind: 'ended', end: { how: 'exit' }, exitCode: rec?.code ?? null, termed: rec?.termed ?? false, note: `Slurm no longer knows job ${id}; ${rec === null ? 'no exit status was recorded' : `the wrapper recorded exit ${rec.code}`}` };
    },
    async stop(how) {
      return (await cancelJob(id, env, how === 'term' ? 'TERM' : undefined)).code === 0;
    },
    async close() {
      off();
      await endSecrets(spec);
    },
    async started() {
      const s = (seen && startedOfRow(seen)) ?? (await slurmStarted(id, env));
      node = s?.node ?? node;
      return s;
    },
    finished: () => slurmFinished(id, env, node),
  };
};

const header = (spec: ExecutorSpec, what: string): void => {
  try {
    appendFileSync(assertInside('append', spec.logPath, [spec.root]), `[checkroom] ${what} ${new Date().toISOString()} run=${spec.runId} executor=slurm cwd=${JSON.stringify(spec.cwd)} argv=${JSON.stringify(spec.argv)}\n`);
  } catch {
    // the job writes the log itself; a header that cannot be written is not a failure
  }
};

/** `slurm:` in checkroom.yaml; extra sbatch arguments are a list, one argument each. */
const options: ExecutorOptions<SlurmOptions> = {
  key: 'slurm',
  schema: ({ z, text, textList, duration, poll, intIn }: SchemaKit) =>
    z.strictObject({
      partition: text.optional(),
      account: text.optional(),
      extra_args: textList.optional(),
      poll: poll.optional(),
      infra_timeout: duration(1000).optional(),
      arrays: z.boolean({ error: 'true or false' }).optional(),
      // Slurm's own MaxArraySize defaults to 1001 (task ids 0..1000).
      array_max: intIn(2, 100_000).optional(),
    }),
  resolve(top, own) {
    const m = { ...top, ...own } as { partition?: string; account?: string; extra_args?: string[]; poll?: number; infra_timeout?: number; arrays?: boolean; array_max?: number };
    return {
      partition: m.partition ?? DEFAULT_SLURM.partition,
      account: m.account ?? DEFAULT_SLURM.account,
      extraArgs: [...(m.extra_args ?? DEFAULT_SLURM.extraArgs)],
      pollMs: m.poll ?? DEFAULT_SLURM.pollMs,
      infraTimeoutMs: m.infra_timeout ?? DEFAULT_SLURM.infraTimeoutMs,
      arrays: m.arrays ?? DEFAULT_SLURM.arrays,
      arrayMax: m.array_max ?? DEFAULT_SLURM.arrayMax,
    };
  },
};

/** The cluster's jobs of this workspace: squeue's, told apart by the comment every job carries. */
const scheduler: SchedulerHook = {
  async jobs(root, agent) {
    const rows = await listJobs(slurmEnvOf(agent));
    if ('error' in rows) return rows;
    const tag = workspaceTag(root);
    const manifests = new Map<string, Awaited<ReturnType<typeof readManifest>>>();
    const out = [];
    for (const r of rows) {
      const c = parseJobComment(r.comment);
      if (c && c.ws === tag) out.push({ id: r.id, state: r.state, runId: c.runId, unit: c.unit, step: c.step });
      // An array task is told apart by its index, the line of the array's manifest.
      const a = parseArrayComment(r.comment);
      if (!a || a.ws !== tag) continue;
      if (!manifests.has(a.name)) manifests.set(a.name, await readManifest(root, a.name));
      const task = manifests.get(a.name)?.[Number(r.id.split('_')[1])];
      if (task) out.push({ id: r.id, state: r.state, runId: task.runId, unit: task.unit, step: task.step });
    }
    return out;
  },
  cancel: (id) => `scancel ${id}`,
};

/**
 * The job's environment without its secrets, and the secrets in a 0600 file the wrapper reads
 * and deletes: sbatch exports the environment it is given into the job (and the controller
 * keeps it), so a key left there reached every job (docs/scale-out.md, Secrets).
 */
const handOffSecrets = async (spec: ExecutorSpec): Promise<ExecutorSpec> => {
  const names = new Set(spec.secretNames ?? []);
  if (names.size === 0) return spec;
  const env = Object.fromEntries(Object.entries(spec.env).filter(([k]) => !names.has(k)));
  const lines = [...names].flatMap((n) => (spec.env[n] !== undefined && !/[\r\n\0]/.test(spec.env[n]!) ? [`${n}=${spec.env[n]}`] : []));
  if (lines.length) await writeFileAtomic(secretsPathOf(spec.logPath), `${lines.join('\n')}\n`, [spec.root], { mode: 0o600 });
  return { ...spec, env };
};

/** After the job: its secrets file gone (a job cancelled before it ran never read it), its log redacted. */
const endSecrets = async (spec: ExecutorSpec): Promise<void> => {
  await rm(assertInside('unlink', secretsPathOf(spec.logPath), [spec.root]), { force: true }).catch(() => undefined);
  const log = await readFile(spec.logPath, 'utf8').catch(() => null);
  if (log !== null && redactSecrets(log) !== log) await writeFileAtomic(spec.logPath, redactSecrets(log), [spec.root]).catch(() => undefined);
};

export const slurmExecutor: Executor = {
  name: 'slurm',
  options,
  scheduler,
  async start(spec) {
    let wrapper: string;
    try {
      wrapper = await ensureWrapper(spec.root);
    } catch (err) {
      return refusedHandle(spec, { exitCode: null, spawnError: 'EACCES', lines: [`[checkroom] cannot write the Slurm wrapper: ${(err as Error).message}`] });
    }
    header(spec, 'submit');
    let quiet: ExecutorSpec;
    try {
      quiet = await handOffSecrets(spec);
    } catch (err) {
      return refusedHandle(spec, { exitCode: null, spawnError: 'EACCES', lines: [`[checkroom] cannot write the job's secrets file: ${(err as Error).message}`] });
    }
    const one = (s: ExecutorSpec) => submitJob(sbatchArgs(s, wrapper, statusPathOf(s.logPath)), s.env);
    const sub = spec.agent.slurm.arrays ? await submitInArray(quiet, one, spec.agent.slurm.arrayMax) : await one(quiet);
    if (!sub.ok) {
      await endSecrets(spec);
      const r = sub.result;
      const lines = `${r.err}\n${r.out}`.split('\n').filter((l) => l.trim() !== '');
      const unreachable = UNREACHABLE.test(lines.join('\n'));
      return refusedHandle(spec, {
        exitCode: r.code,
        spawnError: r.code === 127 ? 'ENOENT' : null,
        lines: [...lines, `[checkroom] sbatch refused the job (exit ${r.code})`],
        infra: unreachable ? 'Slurm controller unreachable' : null,
      });
    }
    try {
      appendFileSync(assertInside('append', spec.logPath, [spec.root]), `[checkroom] Slurm job ${sub.id}\n`);
    } catch {
      // as above
    }
    return counted(quiet, sub.id, await watchJob(quiet, probeOf(quiet, sub.id), { pollMs: spec.agent.slurm.pollMs, from: 0, infraTimeoutMs: spec.agent.slurm.infraTimeoutMs }));
  },
  async adopt(rec, spec) {
    const names = new Set(spec.secretNames ?? []);
    const quiet = { ...spec, env: Object.fromEntries(Object.entries(spec.env).filter(([k]) => !names.has(k))) };
    return counted(quiet, rec.jobId, await watchJob(quiet, probeOf(quiet, rec.jobId), { pollMs: spec.agent.slurm.pollMs, from: tailOffset(spec.logPath), infraTimeoutMs: spec.agent.slurm.infraTimeoutMs }));
  },
  admits: (agent) => (agent.slurm.arrays ? agent.slurm.arrayMax : agent.concurrency),
  async throttle(root, agent, n) {
    const r = await throttleArrays(root, agent.name, n);
    return r.failed.map((f) => `scontrol update JobId=${f.id} ArrayTaskThrottle=${n} failed: ${f.why}`);
  },
};

/** An array task is counted in its array's live set until its end, so a throttle reaches the array. */
const counted = (spec: ExecutorSpec, jobId: string, h: RunHandle): RunHandle => {
  const release = holdArray(spec, jobId);
  void h.result.then(release, release);
  return h;
};

/** Environment for Slurm commands outside a run (the Sources view): the agent's env over ours. */
export const slurmEnvOf = (agent: AgentDef): Record<string, string> => {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  return Object.assign(env, agent.env);
};
