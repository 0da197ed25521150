import type { AgentDef, ExecutorName, WorkspaceConfig } from '../../pipeline/config/types.js';
import { kubernetesExecutor } from './kubernetes.js';
import { localExecutor } from './local.js';
import { slurmExecutor } from './slurm.js';
import type { Executor, SchedulerHook } from './types.js';

// Executors are values in a registry (STYLE.md, seams): adding one is one file and one row.
// The schema's `executor:` enum and options, the resolved agent, the scheduler as a source
// (Sources view, the room's check, recover) and the runner all ask this list
// (docs/architecture.md, How to add).

const BUILT_IN: readonly Executor[] = [
  localExecutor, // the first row is the default: an agent with no `executor:`
  slurmExecutor,
  kubernetesExecutor,
];

let rows: readonly Executor[] = BUILT_IN;

/** Every registered executor, the default first. A new array after each registration. */
export const executorRows = (): readonly Executor[] => rows;

/** Adds an executor (a plug-in, or a test's fake); a name already taken is refused. */
export function registerExecutor(e: Executor): void {
  if (rows.some((r) => r.name === e.name)) throw new Error(`an executor named "${e.name}" is already registered`);
  rows = [...rows, e];
}

/** The executor of a name; an unknown one is the default's. */
export const executorNamed = (name: string | undefined): Executor => rows.find((r) => r.name === name) ?? rows[0]!;

export const executorFor = (agent: AgentDef): Executor => executorNamed(agent.executor);

/** How many cells of this agent may be in flight: the one answer autopilot and `run --next --auto` ask. */
export const inFlightCap = (agent: AgentDef): number => Math.max(agent.concurrency, executorFor(agent).admits?.(agent) ?? agent.concurrency);

/** The first agent whose executor has a scheduler: one answer covers the cluster (the Sources view, a new driver's look for unjournalled jobs). */
export const scheduledAgent = (config: WorkspaceConfig): { agent: AgentDef; name: ExecutorName } | null => {
  for (const agent of Object.values(config.agents)) {
    const e = executorNamed(agent.executor);
    if (e.name === agent.executor && e.scheduler) return { agent, name: e.name };
  }
  return null;
};

/** Journalled run ids as the scheduler's jobs carry them (a Kubernetes label value is sanitized): the launches a job is matched against. */
export const runIdsAsJobs = (hook: SchedulerHook, runIds: readonly string[]): Set<string> => new Set(hook.runIdOf ? runIds.map(hook.runIdOf) : runIds);
