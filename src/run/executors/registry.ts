import type { AgentDef, ExecutorName } from '../../pipeline/config-types.js';
import { kubernetesExecutor } from './kubernetes.js';
import { localExecutor } from './local.js';
import { slurmExecutor } from './slurm.js';
import type { Executor } from './types.js';

// Executors are values in a registry (STYLE.md, seams): adding one is one file and one row.
export const EXECUTORS: Record<ExecutorName, Executor> = {
  local: localExecutor,
  slurm: slurmExecutor,
  kubernetes: kubernetesExecutor,
};

export const executorFor = (agent: AgentDef): Executor => EXECUTORS[agent.executor] ?? localExecutor;
