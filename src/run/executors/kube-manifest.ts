import { createHash } from 'node:crypto';
import type { ExecutorSpec } from './types.js';
import type { AgentDef } from '../../pipeline/config/types.js';
import { IMPLICIT_SECRET } from '../secrets/secrets.js';
import { workspaceTag } from './slurm-wrapper.js';

// One Kubernetes Job per attempt, as plain data (batch/v1). checkroom owns the
// retries (backoffLimit 0, restartPolicy Never); the timeout is activeDeadlineSeconds; the
// workspace is a ReadWriteMany claim mounted at the workspace's own path, so the argv's
// paths mean the same inside the pod; the argv is the container's command (no shell).
// https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/job-v1/

export const LABEL = {
  workspace: 'checkroom.io/workspace',
  unit: 'checkroom.io/unit',
  step: 'checkroom.io/step',
  attempt: 'checkroom.io/attempt',
  run: 'checkroom.io/run',
} as const;

/** A label value: at most 63 of [A-Za-z0-9_.-], starting and ending alphanumeric. */
export const labelValue = (s: string): string => {
  const v = s.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 63).replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, '');
  return v === '' ? 'x' : v;
};

/** A DNS-1123 name of at most 63 characters that still tells runs apart. */
export const kubeJobName = (runId: string): string => {
  const hash = createHash('sha256').update(runId).digest('hex').slice(0, 8);
  const base = runId.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 50).replace(/-+$/, '');
  return `cr-${base}-${hash}`;
};

/** Kubernetes quantities: 4096 MiB → `4Gi`. */
export const kubeMemory = (mib: number): string => (mib % 1024 === 0 ? `${mib / 1024}Gi` : `${mib}Mi`);

/**
 * The container's requests and limits: the step's resources (the ladder's memory) over
 * kubernetes.cpu / .memory; memory is both request and limit, so an attempt past it is
 * OOMKilled; gpus are `nvidia.com/gpu` limits. partition and account have no Kubernetes
 * meaning and are not mapped (docs/scale-out.md, Resources).
 */
export const kubeResources = (spec: Pick<ExecutorSpec, 'agent' | 'resources'>): Record<string, Record<string, string>> | undefined => {
  const k = spec.agent.kubernetes;
  const r = spec.resources ?? {};
  const memory = r.memoryMiB !== undefined ? kubeMemory(r.memoryMiB) : k.memory;
  const cpu = r.cpus !== undefined ? String(r.cpus) : k.cpu;
  const gpus = r.gpus !== undefined && r.gpus > 0 ? String(r.gpus) : null;
  if (!memory && !cpu && !gpus) return undefined;
  return {
    requests: { ...(cpu ? { cpu } : {}), ...(memory ? { memory } : {}) },
    limits: { ...(memory ? { memory } : {}), ...(gpus ? { 'nvidia.com/gpu': gpus } : {}) },
  };
};

/**
 * The container's env: the agent's `env:` as values, but a secret (a name `secrets:` declares,
 * or a key-like name) only as a reference into the Secret `kubernetes.secret` — a manifest is
 * a file, kubectl's input and the API server's record (docs/scale-out.md, Secrets).
 */
export const kubeEnv = (spec: Pick<ExecutorSpec, 'agent' | 'secretNames' | 'declaredSecrets'>): Record<string, unknown>[] => {
  const secret = new Set(spec.secretNames ?? []);
  const plain = Object.entries(spec.agent.env).filter(([name]) => !secret.has(name) && !IMPLICIT_SECRET.test(name));
  const refs = [...new Set([...(spec.declaredSecrets ?? []), ...Object.keys(spec.agent.env).filter((n) => secret.has(n) || IMPLICIT_SECRET.test(n))])].sort();
  return [...plain.map(([name, value]) => ({ name, value })), ...refs.map((name) => ({ name, valueFrom: { secretKeyRef: { name: spec.agent.kubernetes.secret, key: name } } }))];
};

/** The names a Job of these agents reads from its Secret: what `kubectl create secret` must hold. */
export const kubeSecretNames = (spec: Pick<ExecutorSpec, 'agent' | 'secretNames' | 'declaredSecrets'>): string[] =>
  kubeEnv(spec).flatMap((e) => ('valueFrom' in e ? [e.name as string] : []));

/**
 * The operator's command that makes the Secret, with no value in it: the values go in a file
 * of NAME=value lines the operator writes (chmod 600) and deletes after.
 */
export const kubeSecretCommand = (agent: Pick<AgentDef, 'kubernetes'>, names: readonly string[]): string =>
  [...agent.kubernetes.kubectl, ...(agent.kubernetes.namespace ? ['--namespace', agent.kubernetes.namespace] : []), 'create', 'secret', 'generic', agent.kubernetes.secret, '--from-env-file=secrets.env'].join(' ') +
  `   # secrets.env: ${names.map((n) => `${n}=…`).join(', ')} (chmod 600, delete after)`;

export interface KubeManifestInput {
  spec: ExecutorSpec;
  /** Job name (kubeJobName(runId)). */
  name: string;
}

export const kubeJobManifest = ({ spec, name }: KubeManifestInput): Record<string, unknown> => {
  const k = spec.agent.kubernetes;
  const labels = {
    [LABEL.workspace]: workspaceTag(spec.root),
    [LABEL.unit]: labelValue(spec.unit),
    [LABEL.step]: labelValue(spec.step),
    [LABEL.attempt]: String(spec.attempt),
    [LABEL.run]: labelValue(spec.runId),
  };
  const resources = kubeResources(spec);
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, ...(k.namespace ? { namespace: k.namespace } : {}), labels },
    spec: {
      backoffLimit: 0,
      activeDeadlineSeconds: Math.max(1, Math.ceil(spec.timeoutMs / 1000)),
      // Logs are copied into .checkroom/runs/ while the pod exists; an hour is the margin.
      ttlSecondsAfterFinished: 3600,
      template: {
        metadata: { labels },
        spec: {
          restartPolicy: 'Never',
          terminationGracePeriodSeconds: Math.max(1, Math.ceil(spec.graceMs / 1000)),
          ...(k.serviceAccount ? { serviceAccountName: k.serviceAccount } : {}),
          containers: [
            {
              name: 'agent',
              image: k.image ?? '',
              command: spec.argv,
              workingDir: spec.cwd,
              env: kubeEnv(spec),
              ...(resources ? { resources } : {}),
              volumeMounts: [{ name: 'workspace', mountPath: spec.root }],
            },
          ],
          volumes: [{ name: 'workspace', persistentVolumeClaim: { claimName: k.pvc ?? '' } }],
        },
      },
    },
  };
};

/** What a Kubernetes agent needs before a Job can be generated, in words. */
export const kubeConfigProblem = (spec: ExecutorSpec): string | null => {
  const k = spec.agent.kubernetes;
  if (!k.image) return `agent '${spec.agent.name}': kubernetes.image is not set in checkroom.yaml`;
  if (!k.pvc) return `agent '${spec.agent.name}': kubernetes.pvc (a ReadWriteMany claim holding the workspace) is not set in checkroom.yaml`;
  return null;
};
