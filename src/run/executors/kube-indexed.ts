import { exitCodeClasses } from '../policy/exit-classes.js';
import { kubeJobManifest, labelValue, LABEL } from './kube-manifest.js';
import type { ExecutorSpec } from './types.js';

// The Kubernetes form of a job array (docs/scale-out.md, Arrays): the ready cells of one step
// as ONE Indexed Job, `completions` = cells, `parallelism` = the agent's concurrency. Each pod
// runs the same fixed script as a Slurm array task (slurm-manifest.ts), which finds its cell's
// line in the manifest on the claim by JOB_COMPLETION_INDEX. checkroom still owns retries: an
// index is never retried by Kubernetes (backoffLimitPerIndex 0) and a failed index never fails
// the others (maxFailedIndexes = completions); checkroom retries that cell alone, with its
// class. The podFailurePolicy says what the failure-class table already knows from the exit
// code alone; a pod evicted or preempted (DisruptionTarget) is the cluster's fault, not the
// agent's, and is run again without spending the cell's attempts (INFRA's rule).
// https://kubernetes.io/docs/concepts/workloads/controllers/job/#pod-failure-policy

export const ARRAY_LABEL = 'checkroom.io/array';

export interface PodFailureRule {
  action: 'FailIndex' | 'Ignore' | 'Count' | 'FailJob';
  onExitCodes?: { containerName: string; operator: 'In' | 'NotIn'; values: number[] };
  onPodConditions?: { type: string; status: string }[];
}

/** The rules, from the failure classes: `never` → FailIndex, the rest → Count, disruption → Ignore. */
export const podFailurePolicyOf = (agent: ExecutorSpec['agent']): { rules: PodFailureRule[] } => {
  const codes = exitCodeClasses(agent);
  const never = codes.filter((c) => c.retry === 'never').map((c) => c.code);
  const counted = codes.filter((c) => c.retry !== 'never').map((c) => c.code);
  return {
    rules: [
      { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] },
      ...(never.length ? [{ action: 'FailIndex' as const, onExitCodes: { containerName: 'agent', operator: 'In' as const, values: never } }] : []),
      ...(counted.length ? [{ action: 'Count' as const, onExitCodes: { containerName: 'agent', operator: 'In' as const, values: counted } }] : []),
    ],
  };
};

export interface IndexedJobInput {
  /** The cells, in the manifest's order: index i is specs[i]. */
  specs: readonly ExecutorSpec[];
  name: string;
  /** The array's name (its manifest's). */
  array: string;
  wrapper: string;
  manifest: string;
}

/** One Indexed Job for a batch of cells of one step (pure; validated offline by kubectl in the tests). */
export const kubeIndexedJobManifest = ({ specs, name, array, wrapper, manifest }: IndexedJobInput): Record<string, unknown> => {
  const first = specs[0]!;
  // The Job of one attempt is the template: the same claim, image, resources, deadline and grace.
  const one = kubeJobManifest({ spec: first, name }) as { metadata: { labels: Record<string, string> }; spec: Record<string, unknown> & { template: { metadata: { labels: Record<string, string> }; spec: { containers: Record<string, unknown>[] } } } };
  const labels: Record<string, string> = { ...one.metadata.labels, [ARRAY_LABEL]: labelValue(array) };
  // Per cell labels would lie about the other indexes: the manifest maps index → cell.
  for (const k of [LABEL.unit, LABEL.run, LABEL.attempt]) delete labels[k];
  const { backoffLimit: _own, ...rest } = one.spec;
  const container = { ...one.spec.template.spec.containers[0]!, command: ['/bin/sh', wrapper, manifest], workingDir: first.root };
  return {
    ...one,
    metadata: { ...one.metadata, labels },
    spec: {
      ...rest,
      completionMode: 'Indexed',
      completions: specs.length,
      parallelism: Math.max(1, first.agent.concurrency),
      backoffLimitPerIndex: 0,
      maxFailedIndexes: specs.length,
      podFailurePolicy: podFailurePolicyOf(first.agent),
      template: { ...one.spec.template, metadata: { labels }, spec: { ...one.spec.template.spec, containers: [container] } },
    },
  };
};
