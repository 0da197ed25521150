import type { BreakerConfig, FailureClass, KubernetesOptions, Limits, SlurmOptions, SourcesConfig } from './config-types.js';

// The configuration's defaults, as plain data: what a workspace without checkroom.yaml runs
// with. Apart from schema.ts so that reading such a workspace never loads zod (issue 10
// item 2); schema.ts re-exports them.

/** Retries after the first failure, per class (DOMAIN.md section 8 and section 9). */
export const DEFAULT_CAPS: Record<FailureClass, number> = {
  BROKEN_BUILD: 1,
  VERIFICATION_FAILED: 3,
  CIRCULAR_FIX: 0,
  CONTEXT_EXHAUSTED: 2,
  UNKNOWN: 2,
  RATE_LIMITED: 4,
  OVERLOADED: 4,
  NETWORK: 3,
  STALLED: 2,
  INVALID_INPUT: 0,
  PERMISSION: 0,
  TOOL_NOT_FOUND: 0,
  // Issue 12: a cluster fault is retried without touching the agent's budgets; the cap only
  // keeps the path finite, and the executor's own breaker stops a broken cluster sooner.
  INFRA: 6,
  OOM_KILLED: 1,
};

export const FAILURE_CLASSES = Object.keys(DEFAULT_CAPS) as [FailureClass, ...FailureClass[]];

export const DEFAULT_LIMITS: Limits = {
  maxLaunches: 200,
  maxConsecutiveFailures: 8,
  caps: { ...DEFAULT_CAPS },
  backoffBaseMs: 2_000,
  backoffMaxMs: 60_000,
};

export const DEFAULT_BREAKER: BreakerConfig = { threshold: 3, cooldownMs: 30_000, maxCooldownMs: 600_000 };

export const DEFAULT_SOURCES: SourcesConfig = {
  checkpoint: 'checkpoint.md',
  resume: 'RESUME.md',
  todos: null,
  todoPattern: '^(?<unit>ch\\d+)-(?<step>[a-z0-9]+)$',
};

export const DEFAULT_AGENT = { idleTimeoutMs: 120_000, timeoutMs: 1_800_000, graceMs: 5_000, concurrency: 1 };

export const DEFAULT_SLURM: SlurmOptions = { partition: null, account: null, extraArgs: [], pollMs: 1_000 };
export const DEFAULT_KUBERNETES: KubernetesOptions = { kubectl: ['kubectl'], namespace: null, image: null, pvc: null, serviceAccount: null, cpu: null, memory: null, pollMs: 2_000 };
