import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../../src/pipeline/config/config.js';
import { sbatchArgs } from '../../../../src/run/executors/slurm.js';
import { kubeJobManifest, kubeJobName, kubeResources } from '../../../../src/run/executors/kube-manifest.js';
import { limitedArgv } from '../../../../src/run/executors/local.js';
import { attemptResources } from '../../../../src/run/policy/memory-ladder.js';
import type { ExecutorSpec } from '../../../../src/run/executors/types.js';

// One step's resources mapped by each executor (issue 22 item 4): Slurm options as separate
// arguments, Kubernetes requests and limits, a local data limit through prlimit.

const YAML = `slurm: { partition: batch, account: books }
kubernetes: { image: 'a:1', pvc: rwx, cpu: 500m, memory: 2Gi }
agents:
  writer:
    command: [node, w.mjs, '{unit}']
    resources: { memory: 4G, cpus: 4, gpus: 2, partition: gpu, account: lab }
steps:
  - id: draft
    agent: writer
    resources: { memory_ladder: [4G, 8G, 16G] }
`;

const specOf = (oomKills: number): ExecutorSpec => {
  const cfg = parseConfig(YAML, 'checkroom.yaml');
  const agent = cfg.agents.writer!;
  const step = cfg.pipeline.steps.find((s) => s.id === 'draft')!;
  const history = Array.from({ length: oomKills }, (_, i) => ({ attempt: i + 1, class: 'OOM_KILLED' as const, cmdFp: '', errFp: '', keywords: [], at: i }));
  return { runId: 'r1', argv: ['node', 'w.mjs', 'ch01'], cwd: '/w', env: { PATH: process.env.PATH ?? '' }, logPath: '/w/.checkroom/runs/r1.log', outputPath: null, idleTimeoutMs: 1, timeoutMs: 60_000, graceMs: 1000, root: '/w', unit: 'ch01', step: 'draft', attempt: oomKills + 1, agent, resources: attemptResources(agent.resources, step.resources, history), proven: () => false };
};

describe('resources per executor', () => {
  it('Slurm: --mem at the ladder step, --cpus-per-task, --gpus, the step partition and account, each one argument', () => {
    const args = sbatchArgs(specOf(1), '/w/wrap.sh', '/w/x.exit');
    expect(args).toEqual(expect.arrayContaining(['--mem=8G', '--cpus-per-task=4', '--gpus=2', '--partition=gpu', '--account=lab']));
    expect(args).not.toContain('--partition=batch');
    expect(args.slice(-5)).toEqual(['/w/wrap.sh', '/w/x.exit', 'node', 'w.mjs', 'ch01']);
  });

  it('Kubernetes: memory as request and limit at the ladder step, cpus as request, gpus as nvidia.com/gpu; partition not mapped', () => {
    const spec = specOf(2);
    expect(kubeResources(spec)).toEqual({ requests: { cpu: '4', memory: '16Gi' }, limits: { memory: '16Gi', 'nvidia.com/gpu': '2' } });
    const m = JSON.stringify(kubeJobManifest({ spec, name: kubeJobName(spec.runId) }));
    expect(m).not.toMatch(/nodeSelector|"lab"|"gpu"/);
  });

  it('local: memory as a data limit through prlimit, the agent argv after --', () => {
    const { argv, note } = limitedArgv(specOf(0));
    expect(argv.slice(1)).toEqual([`--data=${4096 * 1024 * 1024}`, '--', 'node', 'w.mjs', 'ch01']);
    expect(argv[0]).toMatch(/\/prlimit$/);
    expect(note).toContain('memory 4G applied');
    const none = limitedArgv({ ...specOf(0), env: { PATH: '/nonexistent' } });
    expect(none.argv).toEqual(['node', 'w.mjs', 'ch01']);
    expect(none.note).toContain('memory 4G not applied: prlimit (util-linux) is not on PATH');
  });
});
