import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseConfig } from '../../../../src/pipeline/config/config.js';
import { kubeConfigProblem, kubeJobManifest, kubeJobName, LABEL } from '../../../../src/run/executors/kube-manifest.js';
import { kubeVerdict, UNSCHEDULABLE_LIMIT_MS, type KubeJob, type KubePod } from '../../../../src/run/executors/kube-state.js';
import type { ExecutorSpec } from '../../../../src/run/executors/types.js';
import { tempDir } from '../../../helpers/workspace.js';
import { kubeSchedulerJobs, readScheduler, schedulerFindings } from '../../../../src/sources/scheduler.js';
import { workspaceTag } from '../../../../src/run/executors/slurm-wrapper.js';
import type { Cell } from '../../../../src/types.js';
import { decodeOffline, hasKubectl } from '../../../helpers/kubectl.js';

// Kubernetes Jobs (issue 12). No cluster runs here and none is faked: the generated Job is
// decoded by kubectl itself into its typed batch/v1 structs offline (`kubectl set env
// --local --dry-run=client`: a wrong type fails, an unknown field is dropped and shows up
// as a difference), and the state mapping is tested on `kubectl get -o json` shapes taken
// from the API reference (JobStatus, PodStatus, ContainerState).


const specFor = (yaml: string, over: Partial<ExecutorSpec> = {}): ExecutorSpec => {
  const cfg = parseConfig(yaml, 'checkroom.yaml');
  const agent = cfg.agents.writer!;
  return {
    runId: 'ch03-draft-a2-mx4f2bkn-b8d6e0',
    argv: ['node', 'agents/write.mjs', '--unit', 'ch03', '--last-error', '$(rm -rf /); `id`'],
    cwd: '/shared/book',
    env: { ...agent.env },
    logPath: '/shared/book/.checkroom/runs/ch03-draft-a2-mx4f2bkn-b8d6e0.log',
    outputPath: '/shared/book/drafts/ch03-draft.md',
    idleTimeoutMs: agent.idleTimeoutMs,
    timeoutMs: agent.timeoutMs,
    graceMs: agent.graceMs,
    root: '/shared/book',
    unit: 'ch03',
    step: 'draft',
    attempt: 2,
    agent,
    proven: () => false,
    ...over,
  };
};

const YAML = `executor: kubernetes
kubernetes: { namespace: books, image: 'registry.example/agents:1.4', pvc: book-rwx, service_account: agent-runner, cpu: '500m', memory: 2Gi }
agents:
  writer:
    command: [node, agents/write.mjs, '{unit}']
    env: { MODEL: large }
    timeout: 45m
    grace: 10s
`;

describe('the Kubernetes Job of an attempt', () => {
  it('owns no retries, carries the timeout, the labels, the claim and the options; the argv is the command', () => {
    const spec = specFor(YAML);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a manifest is walked by path in the assertions below
    const m = kubeJobManifest({ spec, name: kubeJobName(spec.runId) }) as any;
    expect(m).toMatchObject({ apiVersion: 'batch/v1', kind: 'Job', metadata: { namespace: 'books' } });
    expect(m.spec.backoffLimit).toBe(0);
    expect(m.spec.activeDeadlineSeconds).toBe(45 * 60);
    expect(m.spec.template.spec.restartPolicy).toBe('Never');
    expect(m.spec.template.spec.terminationGracePeriodSeconds).toBe(10);
    expect(m.spec.template.spec.serviceAccountName).toBe('agent-runner');
    expect(m.metadata.labels).toMatchObject({ [LABEL.unit]: 'ch03', [LABEL.step]: 'draft', [LABEL.attempt]: '2', [LABEL.run]: spec.runId });
    expect(m.metadata.labels[LABEL.workspace]).toMatch(/^[0-9a-f]{12}$/);
    const c = m.spec.template.spec.containers[0];
    expect(c.command).toEqual(spec.argv); // verbatim, no shell
    expect(c.workingDir).toBe('/shared/book');
    expect(c.env).toEqual([{ name: 'MODEL', value: 'large' }]);
    expect(c.resources).toEqual({ requests: { cpu: '500m', memory: '2Gi' }, limits: { memory: '2Gi' } });
    expect(c.volumeMounts).toEqual([{ name: 'workspace', mountPath: '/shared/book' }]);
    expect(m.spec.template.spec.volumes).toEqual([{ name: 'workspace', persistentVolumeClaim: { claimName: 'book-rwx' } }]);
  });

  it('names stay DNS-1123 labels of at most 63 characters and tell runs apart', () => {
    const a = kubeJobName('Ch_03-Draft-a2-' + 'x'.repeat(80));
    const b = kubeJobName('Ch_03-Draft-a2-' + 'x'.repeat(81));
    for (const n of [a, b]) expect(n).toMatch(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/);
    expect(a).not.toBe(b);
  });

  it('says what is missing before any Job is made', () => {
    expect(kubeConfigProblem(specFor('agents:\n  writer:\n    executor: kubernetes\n    command: [x]\n'))).toMatch(/kubernetes.image is not set/);
    expect(kubeConfigProblem(specFor("agents:\n  writer:\n    executor: kubernetes\n    kubernetes: { image: 'a:1' }\n    command: [x]\n"))).toMatch(/kubernetes.pvc/);
  });

  it.skipIf(!hasKubectl)('decodes in kubectl (--dry-run=client, offline) into batch/v1 with nothing dropped', () => {
    const spec = specFor(YAML);
    const m = kubeJobManifest({ spec, name: kubeJobName(spec.runId) });
    const { status, stderr, back } = decodeOffline(m);
    expect(stderr).toBe('');
    expect(status).toBe(0);
    const c = back.spec.template.spec.containers[0];
    expect(c.env.pop()).toEqual({ name: 'CHECKROOM_DECODED', value: '1' });
    expect(back).toMatchObject(m);
    // And a wrong type is refused by the same decoder: the check can fail.
    const bad = JSON.parse(JSON.stringify(m));
    bad.spec.backoffLimit = 'zero';
    const rb = decodeOffline(bad);
    expect(rb.status).not.toBe(0);
    expect(rb.stderr).toMatch(/backoffLimit/);
  });
});

// Shapes as `kubectl get job/pods -o json` returns them (API reference: JobStatus,
// JobCondition, PodStatus, PodCondition, ContainerStatus, ContainerState).
const job = (conditions: object[] = [], extra: object = {}): KubeJob => ({ status: { conditions, ...extra } as KubeJob['status'] });
const pod = (status: object): KubePod => ({ status } as KubePod);
const running = pod({ phase: 'Running', containerStatuses: [{ state: { running: { startedAt: '2026-12-01T08:00:00Z' } } }] });

describe('Kubernetes states → classes', () => {
  it('Complete: the exit code, then the marker decides', () => {
    const done = pod({ phase: 'Succeeded', containerStatuses: [{ state: { terminated: { exitCode: 0, reason: 'Completed' } } }] });
    expect(kubeVerdict(job([{ type: 'Complete', status: 'True' }], { succeeded: 1 }), [done], 0)).toEqual({ kind: 'ended', end: { how: 'exit' }, exitCode: 0 });
  });

  it('Failed with the container’s exit code; DeadlineExceeded is the timeout', () => {
    const failed = pod({ phase: 'Failed', containerStatuses: [{ state: { terminated: { exitCode: 3, reason: 'Error' } } }] });
    expect(kubeVerdict(job([{ type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded' }], { failed: 1 }), [failed], 0)).toEqual({ kind: 'ended', end: { how: 'exit' }, exitCode: 3 });
    const v = kubeVerdict(job([{ type: 'Failed', status: 'True', reason: 'DeadlineExceeded', message: 'Job was active longer than specified deadline' }]), [running], 0);
    expect(v).toMatchObject({ kind: 'ended', end: { how: 'timeout' } });
  });

  it('OOMKilled is its own class', () => {
    const oom = pod({ phase: 'Failed', containerStatuses: [{ state: { terminated: { exitCode: 137, reason: 'OOMKilled' } } }] });
    expect(kubeVerdict(job([{ type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded' }]), [oom], 0)).toMatchObject({ kind: 'ended', end: { how: 'oom' }, exitCode: 137 });
  });

  it('ImagePullBackOff and ErrImagePull are INFRA with the reason', () => {
    const pull = pod({ phase: 'Pending', containerStatuses: [{ state: { waiting: { reason: 'ImagePullBackOff', message: 'Back-off pulling image "registry.example/agents:1.4"' } } }] });
    const v = kubeVerdict(job([], { active: 1 }), [pull], 0);
    expect(v).toMatchObject({ kind: 'ended', end: { how: 'infra' } });
    expect(v.kind === 'ended' && v.end.how === 'infra' && v.end.note).toMatch(/ImagePullBackOff: Back-off pulling image/);
  });

  it('Unschedulable waits with the scheduler’s reason as the why, then becomes INFRA', () => {
    const p = pod({ phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: '0/3 nodes are available: 3 Insufficient memory.' }] });
    expect(kubeVerdict(job([], { active: 1 }), [p], 1_000)).toEqual({ kind: 'waiting', why: 'waiting: Unschedulable (0/3 nodes are available: 3 Insufficient memory.)' });
    expect(kubeVerdict(job([], { active: 1 }), [p], UNSCHEDULABLE_LIMIT_MS)).toMatchObject({ kind: 'ended', end: { how: 'infra' } });
  });

  it('an evicted or preempted pod is INFRA; a running pod runs; a deleted Job is cancelled', () => {
    expect(kubeVerdict(job([], { active: 1 }), [pod({ phase: 'Failed', reason: 'Evicted', message: 'The node was low on resource: memory.' })], 0)).toMatchObject({ end: { how: 'infra' } });
    expect(kubeVerdict(job([], { active: 1 }), [pod({ phase: 'Running', conditions: [{ type: 'DisruptionTarget', status: 'True', reason: 'PreemptionByScheduler' }] })], 0)).toMatchObject({ end: { how: 'infra' } });
    expect(kubeVerdict(job([], { active: 1 }), [running], 0)).toEqual({ kind: 'running' });
    expect(kubeVerdict(null, [], 0)).toMatchObject({ kind: 'ended', end: { how: 'cancelled' } });
  });
});

describe('Kubernetes as the scheduler source', () => {
  it('reads this workspace’s Jobs from `kubectl get jobs -l … -o json` and finds a Job for a done cell', () => {
    const list = {
      items: [
        { metadata: { name: 'cr-ch01-draft-a1-1', labels: { [LABEL.unit]: 'ch01', [LABEL.step]: 'draft', [LABEL.run]: 'ch01-draft-a1-x' } }, status: { active: 1 } },
        { metadata: { name: 'cr-ch02-draft-a1-2', labels: { [LABEL.unit]: 'ch02', [LABEL.step]: 'draft', [LABEL.run]: 'ch02-draft-a1-y' } }, status: { conditions: [{ type: 'Complete', status: 'True' }], succeeded: 1 } },
        { metadata: { name: 'unrelated' }, status: { active: 1 } },
      ],
    };
    const jobs = kubeSchedulerJobs(list);
    expect(jobs).toEqual([
      { id: 'cr-ch01-draft-a1-1', state: 'RUNNING', runId: 'ch01-draft-a1-x', unit: 'ch01', step: 'draft' },
      { id: 'cr-ch02-draft-a1-2', state: 'COMPLETED', runId: 'ch02-draft-a1-y', unit: 'ch02', step: 'draft' },
    ]);
    const done = { unit: 'ch01', step: 'draft', status: 'done', checkpoint: 'done' } as unknown as Cell;
    expect(schedulerFindings(jobs, [done], new Set(['ch01-draft-a1-x', 'ch02-draft-a1-y']), new Set(['draft'])).map((f) => [f.kind, f.jobId])).toEqual([['job_for_done_cell', 'cr-ch01-draft-a1-1']]);
  });

  it('a finding names the Kubernetes command that ends the Job, not Slurm’s scancel (kubectl answered by a script)', async () => {
    const root = tempDir('checkroom-kube-sched-');
    const tag = workspaceTag(root);
    const list = { items: [{ metadata: { name: 'cr-ch01-draft-a1-1', labels: { [LABEL.workspace]: tag, [LABEL.unit]: 'ch01', [LABEL.step]: 'draft', [LABEL.run]: 'by-hand' } }, status: { active: 1 } }] };
    // The script stands for kubectl: it answers `get jobs -l <workspace label> -o json` with one Job nobody launched.
    const script = join(root, 'kubectl.mjs');
    writeFileSync(script, `const a = process.argv.slice(2); if (a.join(' ') !== 'get jobs -l ${LABEL.workspace}=${tag} -o json') process.exit(3); process.stdout.write(${JSON.stringify(JSON.stringify(list))});\n`);
    const cfg = parseConfig(`executor: kubernetes\nkubernetes:\n  kubectl: [${process.execPath}, ${script}]\nagents:\n  writer:\n    command: [node]\n`, join(root, 'checkroom.yaml'));
    const found = await readScheduler(root, cfg, []);
    expect(found?.executor).toBe('kubernetes');
    expect(found?.error).toBeNull();
    expect(found?.findings.map((f) => f.note)).toEqual(['job cr-ch01-draft-a1-1 (RUNNING) was submitted for this cell, but no launch in the journal records it; kubectl delete job cr-ch01-draft-a1-1 unless someone started it by hand']);
  });
});
