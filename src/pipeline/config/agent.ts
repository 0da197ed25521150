import type { AgentDef, Budget } from './types.js';
import { DEFAULT_AGENT, DEFAULT_LIMITS, type RawAgent, type RawConfig } from '../schema.js';
import { adapterRows } from '../../run/adapters/index.js';
import { executorRows } from '../../run/executors/registry.js';
import { resourcesFrom } from '../schema-resources.js';

// From the YAML of one agent and of the budgets to what the runner uses. The options of each
// executor and adapter are resolved by its own file (docs/architecture.md, How to add); a
// plain `command:` agent resolves to exactly the shape it had before adapters and executors.

/** Every executor's options under its key: the top-level mapping, the agent's own over it. */
const executorOptions = (a: RawAgent, raw: RawConfig): Record<string, unknown> => {
  const top = raw as Record<string, unknown>;
  const own = a as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const e of executorRows()) {
    if (!e.options) continue;
    const k = e.options.key;
    out[k] = e.options.resolve(top[k] as Record<string, unknown> | undefined, own[k] as Record<string, unknown> | undefined);
  }
  return out;
};

export const toAgent = (name: string, a: RawAgent, raw: RawConfig): AgentDef => {
  const agent = {
    name,
    command: [...(a.command ?? [])],
    env: { ...(a.env ?? {}) },
    cwd: a.cwd ?? null,
    idleTimeoutMs: a.idle_timeout ?? DEFAULT_AGENT.idleTimeoutMs,
    timeoutMs: a.timeout ?? DEFAULT_AGENT.timeoutMs,
    graceMs: a.grace ?? DEFAULT_AGENT.graceMs,
    concurrency: a.concurrency ?? DEFAULT_AGENT.concurrency,
    rules: (a.rules ?? []).map((r) => ({ ...(r.match !== undefined ? { match: r.match } : {}), ...(r.exit_code !== undefined ? { exitCode: r.exit_code } : {}), class: r.class })),
    // Where it runs: per agent, else the top-level default, else the registry's first row.
    executor: (a.executor as string | undefined) ?? (raw.executor as string | undefined) ?? executorRows()[0]!.name,
    ...executorOptions(a, raw),
  } as AgentDef;
  const adapters = adapterRows();
  const adapter = adapters.find((r) => r.id === a.adapter) ?? adapters[0]!;
  const resolved = adapter.config.resolve ? adapter.config.resolve(a, agent) : agent;
  const res = resourcesFrom(a.resources);
  return { ...resolved, ...(a.on_interrupt ? { onInterrupt: a.on_interrupt } : {}), ...(res ? { resources: res } : {}) };
};

type RawLimits = NonNullable<RawConfig['limits']>;

const split = (v: number | { session?: number; workspace?: number } | undefined): { session: number | null; workspace: number | null } =>
  typeof v === 'number' ? { session: v, workspace: null } : { session: v?.session ?? null, workspace: v?.workspace ?? null };

/**
 * limits.max_launches: a number or `session:` is per session (default
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
