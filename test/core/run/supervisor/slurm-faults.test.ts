import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SupervisorEvent } from '../../../../src/run/supervisor/supervisor.js';
import { exits, jobStateOf, journal, launches, slurmForFile, supervisorsForEach, until } from '../../../helpers/slurm.js';
import { slurmWorkspace } from '../../../helpers/slurm-ws.js';

// Faults of time and of the cluster on a real one-node Slurm of this file's own (issue 12):
// the scheduler's time limit, checkroom's idle watchdog on the log and output file, and a
// node taken down under a running job — INFRA, which must not burn the cell's retries.

// One cluster for this file, started and stopped by the shared helper (test/helpers/slurm.ts).
const { missing, cluster } = slurmForFile(beforeAll, afterAll);

const start = supervisorsForEach(afterEach);
const jobState = (id: string): string => jobStateOf(cluster(), id);

describe.skipIf(missing)('Slurm faults on a real local cluster', () => {
  it('the Slurm time limit ends a job as TIMEOUT: classed as a timeout (STALLED), capped', async () => {
    const root = slurmWorkspace({ faults: { 'ch01/research': 'hang' }, timeout: '3s', idle: '10m', limits: ['  backoff_base: 100ms', '  backoff_max: 500ms', '  caps: { STALLED: 0 }'] });
    const events: SupervisorEvent[] = [];
    const s = await start(root, events);
    const r = await s.launch('ch01', 'research');
    expect(r.outcome).toBe('escalated');
    expect(r.class).toBe('STALLED');
    const [l] = launches(await journal(root));
    // Slurm's --signal warning reached the agent before the limit, or the limit itself did.
    expect(['TIMEOUT', 'FAILED', 'COMPLETED']).toContain(jobState(l.jobId!));
    expect(exits(await journal(root))[0]!.errorTail.join('\n')).toMatch(/Slurm TIMEOUT|signalled before its time limit/);
  }, 150_000);

  it('the idle watchdog watches the log and the output file: a silent job is stopped (STALLED) and retried', async () => {
    const root = slurmWorkspace({ faults: { 'ch01/research': 'hang' }, idle: '3s', limits: ['  backoff_base: 100ms', '  backoff_max: 500ms', '  caps: { STALLED: 2 }'] });
    const s = await start(root);
    const r = await s.launch('ch01', 'research');
    expect(r.outcome).toBe('escalated');
    expect(r.attempts).toBe(2);
    const ev = await journal(root);
    expect(exits(ev).map((e) => e.class)).toEqual(['STALLED', 'STALLED']);
    const ids = launches(ev).map((l) => l.jobId!);
    expect(new Set(ids).size).toBe(2);
    for (const id of ids) await until(`job ${id} ended`, () => !['RUNNING', 'COMPLETING', 'PENDING'].includes(jobState(id)));
    expect(exits(ev)[0]!.errorTail.join('\n')).toMatch(/no output and no output-file growth/);
  }, 120_000);

  it('a node taken down under a running job is INFRA: retried without using the cell\'s retries or the agent\'s breaker', async () => {
    // Every budget of the agent is zero: any agent fault would escalate at once. The node
    // failure must not count as one.
    const caps = '  caps: { UNKNOWN: 0, VERIFICATION_FAILED: 0, STALLED: 0, RATE_LIMITED: 0 }';
    const root = slurmWorkspace({ speed: 0.5, limits: ['  backoff_base: 100ms', '  backoff_max: 500ms', caps], breaker: '{ threshold: 1, cooldown: 1s }' });
    const events: SupervisorEvent[] = [];
    const s = await start(root, events);
    const p = s.launch('ch01', 'research');
    await until('the job running', () => s.snapshot().runs.some((r) => r.job && r.lines.some((l) => l.includes('starting research'))));
    expect(cluster().run(['scontrol', 'update', `nodename=${cluster().node}`, 'state=down', 'reason=checkroom-test']).code).toBe(0);
    await until('the first attempt classed', async () => exits(await journal(root)).length >= 1);
    expect(exits(await journal(root))[0]!.class).toBe('INFRA');
    // The node comes back (ReturnToService=2 brings a DOWN node back once slurmd answers; resume to be sure).
    cluster().run(['scontrol', 'update', `nodename=${cluster().node}`, 'state=resume']);
    const r = await p;
    expect(r.outcome).toBe('done');
    const l = s.snapshot().ledger;
    expect(l.cells['ch01/research']!.attempts.map((a) => a.class)).toEqual(['INFRA', 'SUCCESS']);
    // The agent's breaker never saw a failure; the executor's own breaker did.
    expect(l.agents.researcher!.breaker.consecutiveFailures).toBe(0);
    const breakers = events.filter((e): e is Extract<SupervisorEvent, { type: 'breaker' }> => e.type === 'breaker');
    expect(breakers.some((e) => e.agent === 'slurm:infra' && e.state === 'open')).toBe(true);
    expect(breakers.filter((e) => e.agent === 'researcher')).toEqual([]);
    expect(l.consecutiveFailures).toBe(0);
    expect(events.map((e) => e.message).join('\n')).toMatch(/Slurm NODE_FAIL/);
  }, 150_000);
});
