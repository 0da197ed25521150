import type { AgentDef, Budget, JsonlFields, KubernetesOptions, SlurmOptions } from './config-types.js';
import { DEFAULT_AGENT, DEFAULT_KUBERNETES, DEFAULT_LIMITS, DEFAULT_SLURM, type RawAgent, type RawConfig, type RawKubernetes, type RawSlurm } from './schema.js';

// From the YAML of one agent and of the budgets to what the runner uses. Kept apart from
// config.ts so the adapter options (issue 11) and the executor options (issue 12) have one place; a plain `command:` agent
// resolves to exactly the shape it had before them.

const toSlurm = (top: RawSlurm | undefined, own: RawSlurm | undefined): SlurmOptions => {
  const m = { ...top, ...own };
  return {
    partition: m.partition ?? DEFAULT_SLURM.partition,
    account: m.account ?? DEFAULT_SLURM.account,
    extraArgs: [...(m.extra_args ?? DEFAULT_SLURM.extraArgs)],
    pollMs: m.poll ?? DEFAULT_SLURM.pollMs,
    infraTimeoutMs: m.infra_timeout ?? DEFAULT_SLURM.infraTimeoutMs,
  };
};

const toKubernetes = (top: RawKubernetes | undefined, own: RawKubernetes | undefined): KubernetesOptions => {
  const m = { ...top, ...own };
  const d = DEFAULT_KUBERNETES;
  return {
    kubectl: [...(m.kubectl ?? d.kubectl)],
    namespace: m.namespace ?? d.namespace,
    image: m.image ?? d.image,
    pvc: m.pvc ?? d.pvc,
    serviceAccount: m.service_account ?? d.serviceAccount,
    cpu: m.cpu ?? d.cpu,
    memory: m.memory ?? d.memory,
    pollMs: m.poll ?? d.pollMs,
    infraTimeoutMs: m.infra_timeout ?? d.infraTimeoutMs,
  };
};

export const toAgent = (name: string, a: RawAgent, raw: RawConfig): AgentDef => {
  const agent: AgentDef = {
    name,
    command: [...(a.command ?? [])],
    env: { ...(a.env ?? {}) },
    cwd: a.cwd ?? null,
    idleTimeoutMs: a.idle_timeout ?? DEFAULT_AGENT.idleTimeoutMs,
    timeoutMs: a.timeout ?? DEFAULT_AGENT.timeoutMs,
    graceMs: a.grace ?? DEFAULT_AGENT.graceMs,
    concurrency: a.concurrency ?? DEFAULT_AGENT.concurrency,
    rules: (a.rules ?? []).map((r) => ({ ...(r.match !== undefined ? { match: r.match } : {}), ...(r.exit_code !== undefined ? { exitCode: r.exit_code } : {}), class: r.class })),
    // Issue 12: where it runs; per agent, else the top-level default.
    executor: a.executor ?? raw.executor ?? 'local',
    slurm: toSlurm(raw.slurm, a.slurm),
    kubernetes: toKubernetes(raw.kubernetes, a.kubernetes),
  };
  if (a.adapter === 'claude-code' || a.adapter === 'jsonl') {
    agent.adapter = a.adapter;
    const f = a.fields;
    const jsonl: JsonlFields | null = f
      ? { session: f.session, activity: f.activity, activityDetail: f.activity_detail, cost: f.cost, tokensIn: f.tokens_in, tokensOut: f.tokens_out, isError: f.is_error, errorStatus: f.error_status, errorText: f.error_text, final: f.final }
      : null;
    agent.cli = {
      prompt: a.prompt ?? null,
      model: a.model ?? null,
      permissionMode: a.permission_mode ?? null,
      allowedTools: [...(a.allowed_tools ?? [])],
      args: [...(a.args ?? [])],
      bin: a.bin ?? null,
      jsonl,
    };
  } else if (a.args) {
    // `args:` on a command agent: appended to its command, like for the other adapters.
    agent.command.push(...a.args);
  }
  if (a.on_interrupt) agent.onInterrupt = a.on_interrupt;
  return agent;
};

type RawLimits = NonNullable<RawConfig['limits']>;

const split = (v: number | { session?: number; workspace?: number } | undefined): { session: number | null; workspace: number | null } =>
  typeof v === 'number' ? { session: v, workspace: null } : { session: v?.session ?? null, workspace: v?.workspace ?? null };

/**
 * limits.max_launches (issue 17 item 4): a number or `session:` is per session (default
 * DEFAULT_LIMITS.maxLaunches, the death-spiral guard); `workspace:` caps every session
 * together.
 */
export const launchCaps = (v: RawLimits['max_launches']): { maxLaunches: number; maxLaunchesWorkspace?: number } => {
  const { session, workspace } = split(v);
  return { maxLaunches: session ?? DEFAULT_LIMITS.maxLaunches, ...(workspace !== null ? { maxLaunchesWorkspace: workspace } : {}) };
};

/** limits.max_cost_usd and limits.max_tokens; undefined when neither is set. */
export const toBudget = (l: RawLimits): Budget | undefined =>
  l.max_cost_usd === undefined && l.max_tokens === undefined ? undefined : { costUsd: split(l.max_cost_usd), tokens: split(l.max_tokens) };
