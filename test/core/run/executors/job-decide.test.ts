import { describe, expect, it } from 'vitest';
import { decideJob, type JobWatchState } from '../../../../src/run/executors/job-decide.js';

// A cluster job's handle after one look (issue 12), decided without a scheduler: injected
// clock values, no waiting.

const lim = { idleTimeoutMs: 10_000, timeoutMs: 60_000, timeoutSlackMs: 30_000 };
const st = (o: Partial<JobWatchState> = {}): JobWatchState => ({ lastActivity: 0, runningSince: 0, stopping: null, ...o });
const name = 'slurm job 7';

describe('decideJob', () => {
  it('the marker proves it while the scheduler still shows RUNNING', () => {
    expect(decideJob(st(), { kind: 'running' }, 1_000, lim, true, name)).toEqual({ do: 'finish', end: { how: 'exit' }, exitCode: 0, note: 'the marker is on disk while slurm job 7 still shows RUNNING: done by the marker' });
  });

  it('an operator cancel in progress is not overtaken by the marker', () => {
    expect(decideJob(st({ stopping: 'cancel' }), { kind: 'running' }, 1_000, lim, true, name)).toEqual({ do: 'run' });
  });

  it('a controller silent past infra_timeout makes the job INFRA: shown so, waited on, never stopped or relaunched (issue 17 item 7)', () => {
    const l = { ...lim, infraTimeoutMs: 120_000 };
    const look = { kind: 'unreachable', why: 'squeue: Unable to contact slurm controller' } as const;
    expect(decideJob(st({ unreachableSince: 0 }), look, 60_000, l, false, name)).toEqual({ do: 'wait', why: 'squeue: Unable to contact slurm controller' });
    const late = decideJob(st({ unreachableSince: 0, lastActivity: 0 }), look, 130_000, l, false, name);
    expect(late).toEqual({ do: 'wait', why: 'INFRA: the controller has not answered for 130 s (squeue: Unable to contact slurm controller); slurm job 7 is re-checked at every poll, not relaunched' });
    // The marker still proves it while the controller is away.
    expect(decideJob(st({ unreachableSince: 0 }), look, 130_000, l, true, name)).toMatchObject({ do: 'finish', exitCode: 0 });
  });

  it('a queued job waits with the scheduler’s reason, however long', () => {
    expect(decideJob(st(), { kind: 'waiting', why: 'waiting: Resources' }, 10 * 60_000, lim, false, name)).toEqual({ do: 'wait', why: 'waiting: Resources' });
  });

  it('silence past the idle timeout stops a running job as stalled; output keeps it alive', () => {
    expect(decideJob(st({ lastActivity: 0 }), { kind: 'running' }, 10_001, lim, false, name)).toMatchObject({ do: 'stop', reason: 'stalled' });
    expect(decideJob(st({ lastActivity: 5_000 }), { kind: 'running' }, 10_001, lim, false, name)).toEqual({ do: 'run' });
    // Already stopping: no second stop.
    expect(decideJob(st({ stopping: 'stalled' }), { kind: 'running' }, 60_000, lim, false, name)).toEqual({ do: 'run' });
  });

  it('past timeout + slack checkroom ends the job itself', () => {
    expect(decideJob(st({ lastActivity: 95_000, runningSince: 0 }), { kind: 'running' }, 90_001, lim, false, name)).toMatchObject({ do: 'stop', reason: 'timeout' });
  });

  it('an exit after a SIGTERM checkroom did not send is the time limit’s warning: a timeout', () => {
    expect(decideJob(st(), { kind: 'ended', end: { how: 'exit' }, exitCode: 143, termed: true }, 1, lim, false, name)).toMatchObject({ do: 'finish', end: { how: 'timeout' }, exitCode: 143 });
    // checkroom's own stop is not the scheduler's warning.
    expect(decideJob(st({ stopping: 'stalled' }), { kind: 'ended', end: { how: 'exit' }, exitCode: 143, termed: true }, 1, lim, false, name)).toMatchObject({ do: 'finish', end: { how: 'exit' } });
    expect(decideJob(st(), { kind: 'ended', end: { how: 'infra', note: 'Slurm NODE_FAIL' }, exitCode: null }, 1, lim, false, name)).toMatchObject({ do: 'finish', end: { how: 'infra' } });
  });
});
