import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../../src/pipeline/config/config.js';
import { classifyOutcome } from '../../../src/run/policy/classify.js';
import { sbatchArgs } from '../../../src/run/executors/slurm.js';
import { parseExitCode, parseSqueue, slurmSignal, slurmTime, slurmVerdict } from '../../../src/run/executors/slurm-state.js';
import type { ExecutorSpec } from '../../../src/run/executors/types.js';
import type { ProcessOutcome } from '../../../src/run/types.js';
import { parseJobComment, schedulerFindings } from '../../../src/sources/scheduler.js';
import type { Cell } from '../../../src/types.js';
import { flightState } from '../../../src/ui/agents/agents.js';
import { operatorOf } from '../../../src/ui/store/operator.js';
import type { AgentsUi } from '../../../src/ui/agents/types.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../../src/pipeline/config/config.js';
import { openSupervisor } from '../../../src/run/supervisor/supervisor.js';
import { tempDir } from '../../helpers/workspace.js';
import { replayJournal } from '../../../src/run/journal/ledger-fold.js';
import { DEFAULT_BREAKER, DEFAULT_LIMITS } from '../../../src/pipeline/defaults.js';

// The pure half of the Slurm executor (issue 12): scheduler states to verdicts, the sbatch
// arguments of an attempt, and the `executor:` / `slurm:` settings of checkroom.yaml.

describe('Slurm states', () => {
  it('NODE_FAIL, PREEMPTED and BOOT_FAIL are INFRA; TIMEOUT is the timeout; CANCELLED is a cancel', () => {
    for (const s of ['NODE_FAIL', 'PREEMPTED', 'BOOT_FAIL']) expect(slurmVerdict(s, 'NodeDown')).toEqual({ kind: 'ended', end: { how: 'infra', note: `Slurm ${s} (NodeDown)` } });
    expect(slurmVerdict('TIMEOUT', 'TimeLimit')).toMatchObject({ kind: 'ended', end: { how: 'timeout' } });
    expect(slurmVerdict('CANCELLED by 0', 'None')).toMatchObject({ kind: 'ended', end: { how: 'cancelled' } });
    expect(slurmVerdict('OUT_OF_MEMORY', 'None')).toMatchObject({ kind: 'ended', end: { how: 'oom' } });
  });

  it('COMPLETED and FAILED leave it to the exit code, the log rules and the marker', () => {
    expect(slurmVerdict('COMPLETED', 'None')).toEqual({ kind: 'ended', end: { how: 'exit' } });
    expect(slurmVerdict('FAILED', 'NonZeroExitCode')).toEqual({ kind: 'ended', end: { how: 'exit' } });
  });

  it('PENDING shows the scheduler’s Reason as the why', () => {
    expect(slurmVerdict('PENDING', 'Resources')).toEqual({ kind: 'waiting', why: 'waiting: Resources' });
    expect(slurmVerdict('PENDING', 'QOSMaxJobsPerUserLimit')).toEqual({ kind: 'waiting', why: 'waiting: QOSMaxJobsPerUserLimit' });
    expect(slurmVerdict('PENDING', 'None')).toEqual({ kind: 'waiting', why: 'waiting: queued' });
    expect(slurmVerdict('RUNNING', 'None')).toEqual({ kind: 'running' });
    expect(slurmVerdict('COMPLETING', 'None')).toEqual({ kind: 'running' });
  });

  it('reads squeue rows, exit codes, and writes --time and --signal', () => {
    // squeue -o '%i|%T|%r|%V|%S|%N|%j|%k': submit, start and nodes ride on the one poll.
    expect(parseSqueue('12|RUNNING|None|2026-12-02T08:00:00|2026-12-02T08:00:03|n1|checkroom-r1|checkroom ws=abc run=r1 cell=ch01/draft|x\nnot a row\n')).toEqual([
      { id: '12', state: 'RUNNING', reason: 'None', submit: '2026-12-02T08:00:00', start: '2026-12-02T08:00:03', nodes: 'n1', name: 'checkroom-r1', comment: 'checkroom ws=abc run=r1 cell=ch01/draft|x' },
    ]);
    expect(parseExitCode('JobId=4 JobState=FAILED Reason=NonZeroExitCode ExitCode=2:0 RunTime=1')).toBe(2);
    expect(parseExitCode('JobState=CANCELLED ExitCode=0:15')).toBe(143);
    expect(slurmTime(30 * 60_000)).toBe('30:00');
    expect(slurmTime(1_500)).toBe('0:02');
    expect(slurmSignal(5_000)).toBe('B:TERM@5');
    expect(slurmSignal(0)).toBe('B:TERM@1');
  });

  it('a cluster fault is classed INFRA and a pod killed for memory OOM_KILLED, before the log is read', () => {
    const o: ProcessOutcome = { runId: 'r', exitCode: 1, signal: null, spawnError: null, stalled: false, timedOut: false, cancelled: false, tail: ['429 Too Many Requests'], startedAt: 0, endedAt: 1, bytesOut: 0 };
    expect(classifyOutcome({ ...o, infra: 'Slurm NODE_FAIL' }, { markerFound: false, rules: [] })).toBe('INFRA');
    expect(classifyOutcome({ ...o, oomKilled: true }, { markerFound: false, rules: [] })).toBe('OOM_KILLED');
    // The marker still proves it, whatever the scheduler said.
    expect(classifyOutcome({ ...o, exitCode: 0, infra: 'Slurm NODE_FAIL' }, { markerFound: true, rules: [] })).toBe('SUCCESS');
    expect(classifyOutcome(o, { markerFound: false, rules: [] })).toBe('RATE_LIMITED');
  });
});

const YAML = `executor: slurm
slurm: { partition: gpu, account: books, extra_args: [--qos=long, '--gres=gpu:1'] }
agents:
  writer:
    command: [node, agents/write.mjs, '{unit}']
    timeout: 45m
    grace: 10s
  reviewer:
    executor: local
    command: [node, agents/review.mjs]
  editor:
    command: [node, agents/edit.mjs]
    slurm: { partition: cpu }
`;

describe('executor settings in checkroom.yaml', () => {
  it('a default for every agent, overridden per agent; slurm options merge', () => {
    const cfg = parseConfig(YAML, 'checkroom.yaml');
    expect(cfg.agents.writer).toMatchObject({ executor: 'slurm', slurm: { partition: 'gpu', account: 'books', extraArgs: ['--qos=long', '--gres=gpu:1'], pollMs: 1_000 } });
    expect(cfg.agents.reviewer!.executor).toBe('local');
    expect(cfg.agents.editor).toMatchObject({ executor: 'slurm', slurm: { partition: 'cpu', account: 'books' } });
    expect(parseConfig('agents:\n  w:\n    command: [x]\n', 'c.yaml').agents.w!.executor).toBe('local');
  });

  it('errors point at the node: an unknown executor, an unknown slurm key, a string of extra args', () => {
    const errorOf = (text: string): ConfigError => {
      try {
        parseConfig(text, 'checkroom.yaml');
      } catch (e) {
        if (e instanceof ConfigError) return e;
        throw e;
      }
      throw new Error('expected a ConfigError');
    };
    const a = errorOf('agents:\n  w:\n    command: [x]\n    executor: pbs\n');
    expect([a.line, a.column]).toEqual([4, 15]);
    expect(a.message).toMatch(/one of: local, slurm, kubernetes/);
    const b = errorOf('slurm:\n  partiton: gpu\n');
    expect([b.line, b.column]).toEqual([2, 3]);
    expect(b.message).toMatch(/partiton/);
    const c = errorOf('slurm:\n  extra_args: --qos=long\n');
    expect([c.line, c.column]).toEqual([2, 15]);
    expect(c.message).toMatch(/a list/);
  });

  it('sbatch gets the argv as arguments of the fixed wrapper, after every option', () => {
    const cfg = parseConfig(YAML, 'checkroom.yaml');
    const argv = ['node', 'agents/write.mjs', 'ch03; rm -rf ~', '$(id)'];
    const spec: ExecutorSpec = { runId: 'ch03-draft-a1-x', argv, cwd: '/w', env: {}, logPath: '/w/.checkroom/runs/100%-ch03.log', outputPath: null, idleTimeoutMs: 1, timeoutMs: cfg.agents.writer!.timeoutMs, graceMs: cfg.agents.writer!.graceMs, root: '/w', unit: 'ch03', step: 'draft', attempt: 1, agent: cfg.agents.writer!, proven: () => false };
    const args = sbatchArgs(spec, '/w/.checkroom/slurm/run-agent.sh', '/w/.checkroom/runs/x.exit');
    expect(args.slice(-6)).toEqual(['/w/.checkroom/slurm/run-agent.sh', '/w/.checkroom/runs/x.exit', ...argv]);
    expect(args).toContain('--time=45:00');
    expect(args).toContain('--signal=B:TERM@10');
    expect(args).toContain('--partition=gpu');
    expect(args).toContain('--account=books');
    expect(args).toContain('--gres=gpu:1');
    expect(args).toContain('--no-requeue');
    expect(args).toContain('--job-name=checkroom-ch03-draft-a1-x');
    // '%' in a path is a Slurm filename pattern: doubled, it is a literal '%'.
    expect(args).toContain('--output=/w/.checkroom/runs/100%%-ch03.log');
  });
});

describe('the scheduler as a fourth source', () => {
  const cell = (unit: string, step: string, status: string, checkpoint: string | null): Cell => ({ unit, step, batch: 1, path: '', status, disk: 'missing', checkpoint, exists: false, bytes: 0, chars: 0, marker: status === 'done', mtimeMs: 0, triage: null, blockedBy: [] }) as unknown as Cell;
  it('a cell ⏳ with no job; a job for a done cell; a job no launch recorded; agreement is silent', () => {
    const jobs = [
      { id: '7', state: 'RUNNING', runId: 'r7', unit: 'ch01', step: 'draft' },
      { id: '8', state: 'PENDING', runId: 'r8', unit: 'ch02', step: 'draft' },
      { id: '9', state: 'RUNNING', runId: 'r9', unit: 'ch03', step: 'draft' },
      { id: '6', state: 'COMPLETED', runId: 'r6', unit: 'ch05', step: 'draft' },
    ];
    const cells = [cell('ch01', 'draft', 'done', 'in_progress'), cell('ch02', 'draft', 'missing', 'in_progress'), cell('ch03', 'draft', 'partial', 'in_progress'), cell('ch04', 'draft', 'partial', 'in_progress'), cell('ch04', 'r1', 'partial', 'in_progress')];
    const f = schedulerFindings(jobs, cells, new Set(['r7', 'r9', 'r6']), new Set(['draft']));
    expect(f.map((x) => [x.kind, `${x.unit}/${x.step}`, x.jobId])).toEqual([
      ['job_for_done_cell', 'ch01/draft', '7'],
      ['job_not_launched', 'ch02/draft', '8'],
      ['cell_without_job', 'ch04/draft', null],
    ]);
    // Shown in the Sources view, also under --ascii: the claim in words, not ⏳.
    expect(f[2].note).toBe('checkpoint.md says in progress, but no job of this workspace runs it: relaunch it, or triage its half-product');
    expect(parseJobComment('checkroom ws=abc123 run=ch01-draft-a1-x cell=ch01/draft')).toEqual({ ws: 'abc123', runId: 'ch01-draft-a1-x', unit: 'ch01', step: 'draft' });
    expect(parseJobComment('someone else')).toBeNull();
  });
});

describe('a job in the Agents view', () => {
  it('shows the job instead of a pid, and the scheduler’s reason while it waits', () => {
    const run = { runId: 'r1', unit: 'ch01', step: 'draft', agent: 'writer', attempt: 1, pid: null, logPath: '/l', startedAt: 1_000, lines: [], job: { executor: 'slurm', id: '12' }, why: 'waiting: Resources' };
    const a = { at: 4_000, limits: null, agentNames: [], snap: { role: 'driver', runs: [run], waiting: [], autopilot: { on: false, paused: false, reason: '' }, ledger: replayJournal([], 4_000, { breaker: DEFAULT_BREAKER, limits: DEFAULT_LIMITS }) } } as unknown as AgentsUi;
    const m = operatorOf({ ws: { cells: [], next: [], partials: [], suspects: [], discrepancies: [], warnings: [], scannedAt: 0 } as never, agents: a });
    const [f] = m.runs;
    // Queued by the scheduler: pending, never running (issue 18; it said "running slurm job 12").
    expect(flightState(f!, m)).toBe('pending slurm job 12 · waiting: Resources · 3 s · attempt 1');
    expect(m.counts).toMatchObject({ running: 0, pending: 1 });
  });
});

describe('the executor’s infra breaker', () => {
  it('is the operator’s to hold, release and reset, like an agent’s; an unknown one is refused', async () => {
    const root = tempDir();
    writeFileSync(join(root, 'checkroom.yaml'), 'executor: slurm\nagents:\n  writer:\n    command: [node, w.mjs]\n');
    const s = await openSupervisor({ root, config: await loadConfig(root) });
    try {
      await s.holdBreaker('slurm:infra');
      expect(s.snapshot().ledger.agents['slurm:infra']!.view.state).toBe('held');
      await s.resetBreaker('slurm:infra');
      expect(s.snapshot().ledger.agents['slurm:infra']!.view.state).toBe('closed');
      await expect(s.resetBreaker('kubernetes:infra')).rejects.toThrow(/no agent 'kubernetes:infra'/);
    } finally {
      await s.close();
    }
  });
});
