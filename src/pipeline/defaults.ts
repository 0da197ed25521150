import type { BreakerConfig, FailureClass, KubernetesOptions, Limits, SlurmOptions, SourcesConfig } from './config/types.js';
import { BUILT_IN_CLASSES } from './failure-classes.js';

// The configuration's defaults, as plain data: what a workspace without checkroom.yaml runs
// with. Apart from schema.ts so that reading such a workspace never loads zod; schema.ts re-exports them.

/** Attempts in all, per class (docs/domain.md, Failure classes and their caps; Handling agent faults): the table's caps. */
export const DEFAULT_CAPS: Record<FailureClass, number> = { ...BUILT_IN_CLASSES.defaultCaps };

export const FAILURE_CLASSES = BUILT_IN_CLASSES.names;

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

export const DEFAULT_SLURM: SlurmOptions = { partition: null, account: null, extraArgs: [], pollMs: 1_000, infraTimeoutMs: 120_000, arrays: false, arrayMax: 1_000 };
export const DEFAULT_KUBERNETES: KubernetesOptions = { kubectl: ['kubectl'], namespace: null, image: null, pvc: null, serviceAccount: null, secret: 'checkroom-secrets', cpu: null, memory: null, pollMs: 2_000, infraTimeoutMs: 120_000 };

/** `logs.max_bytes` unset: .checkroom/runs/ may hold 1 GiB of attempts' logs (docs/logs.md, "Disk budget"). */
export const DEFAULT_LOGS_MAX_BYTES = 1024 ** 3;
