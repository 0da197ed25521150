import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../../src/pipeline/config/config.js';
import { kubeIndexedJobManifest, podFailurePolicyOf, ARRAY_LABEL } from '../../../../src/run/executors/kube-indexed.js';
import { exitCodeClasses } from '../../../../src/run/policy/exit-classes.js';
import { LABEL } from '../../../../src/run/executors/kube-manifest.js';
import type { ExecutorSpec } from '../../../../src/run/executors/types.js';
import { decodeOffline, hasKubectl } from '../../../helpers/kubectl.js';

// The Kubernetes form of a job array (docs/scale-out.md, Arrays): one Indexed Job for the
// ready cells of a step. No cluster runs here and none is faked: the Job is decoded by kubectl
// itself into its typed batch/v1 structs offline (`kubectl set env --local --dry-run=client`,
// as kubernetes.test.ts does): a wrong type fails, a field kubectl does not know is dropped and
// shows up as a difference.


const YAML = `executor: kubernetes
kubernetes: { namespace: books, image: 'registry.example/agents:1.4', pvc: book-rwx, cpu: '500m', memory: 2Gi }
agents:
  writer:
    command: [node, agents/write.mjs, '{unit}']
    concurrency: 4
    timeout: 45m
    grace: 10s
    rules:
      - { exit_code: 75, class: RATE_LIMITED }
      - { exit_code: 64, class: INVALID_INPUT }
      - { exit_code: 65, match: 'bad data', class: INVALID_INPUT }
`;

const specs = (): ExecutorSpec[] => {
  const agent = parseConfig(YAML, 'checkroom.yaml').agents.writer!;
  return ['ch01', 'ch02', 'ch03'].map((unit) => ({
    runId: `${unit}-draft-a1-x`,
    argv: ['node', 'agents/write.mjs', unit],
    cwd: '/shared/book',
    env: {},
    logPath: `/shared/book/.checkroom/runs/${unit}-draft-a1-x.log`,
    outputPath: `/shared/book/drafts/${unit}.md`,
    idleTimeoutMs: agent.idleTimeoutMs,
    timeoutMs: agent.timeoutMs,
    graceMs: agent.graceMs,
    root: '/shared/book',
    unit,
    step: 'draft',
    attempt: 1,
    agent,
    proven: () => false,
  }));
};

const input = () => ({ specs: specs(), name: 'cr-draft-1', array: 'draft-1', wrapper: '/shared/book/.checkroom/slurm/run-array.sh', manifest: '/shared/book/.checkroom/slurm/arrays/draft-1.tasks' });

describe('the Indexed Job of a batch', () => {
  it('exit codes the class table decides alone: the agent’s code-only rules, then the signs that need no text', () => {
    const byCode = new Map(exitCodeClasses(specs()[0]!.agent).map((c) => [c.code, `${c.class}/${c.retry}`]));
    expect(byCode.get(127)).toBe('TOOL_NOT_FOUND/never');
    expect(byCode.get(75)).toBe('RATE_LIMITED/unchanged');
    expect(byCode.get(64)).toBe('INVALID_INPUT/never');
    // A rule that also needs the output's words is the log's to decide, not the code's.
    expect(byCode.has(65)).toBe(false);
    expect(byCode.has(1)).toBe(false);
  });

  it('one Job, completions = cells, parallelism = concurrency, no retry by Kubernetes, a failed index never fails the others; the pod runs the array script', () => {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a manifest is walked by path in the assertions below
    const m = kubeIndexedJobManifest(input()) as any;
    expect(m.spec).toMatchObject({ completionMode: 'Indexed', completions: 3, parallelism: 4, backoffLimitPerIndex: 0, maxFailedIndexes: 3, activeDeadlineSeconds: 2700 });
    expect(m.spec.backoffLimit).toBeUndefined();
    expect(m.spec.template.spec.restartPolicy).toBe('Never');
    const c = m.spec.template.spec.containers[0];
    expect(c.command).toEqual(['/bin/sh', '/shared/book/.checkroom/slurm/run-array.sh', '/shared/book/.checkroom/slurm/arrays/draft-1.tasks']);
    expect(c.volumeMounts).toEqual([{ name: 'workspace', mountPath: '/shared/book' }]);
    expect(m.metadata.labels[ARRAY_LABEL]).toBe('draft-1');
    expect(m.metadata.labels[LABEL.step]).toBe('draft');
    expect(m.metadata.labels[LABEL.unit]).toBeUndefined();
    expect(m.spec.podFailurePolicy).toEqual(podFailurePolicyOf(specs()[0]!.agent));
    expect(m.spec.podFailurePolicy.rules).toEqual([
      { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] },
      { action: 'FailIndex', onExitCodes: { containerName: 'agent', operator: 'In', values: [64, 127] } },
      { action: 'Count', onExitCodes: { containerName: 'agent', operator: 'In', values: [75] } },
    ]);
  });

  it.skipIf(!hasKubectl)('decodes in kubectl (--dry-run=client, offline) into batch/v1 with nothing dropped, and a wrong type in its podFailurePolicy is refused', () => {
    const m = kubeIndexedJobManifest(input());
    const { status, stderr, back } = decodeOffline(m);
    expect(stderr).toBe('');
    expect(status).toBe(0);
    expect(back.spec.template.spec.containers[0].env.pop()).toEqual({ name: 'CHECKROOM_DECODED', value: '1' });
    expect(back).toMatchObject(m);
    const bad = JSON.parse(JSON.stringify(m));
    bad.spec.podFailurePolicy.rules[1].onExitCodes.values = 'sixty-four';
    const rb = decodeOffline(bad);
    expect(rb.status).not.toBe(0);
    expect(rb.stderr).toMatch(/values/);
  });
});
