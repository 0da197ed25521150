import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/pipeline/config/config.js';
import { readJournal, type JournalEvent, type LaunchEvent } from '../../../src/run/journal/journal.js';
import { openSupervisor, type Supervisor } from '../../../src/run/supervisor/supervisor.js';
import { jobStateOf, slurmForFile, until } from '../../helpers/slurm.js';
import { slurmWorkspace } from '../../helpers/slurm-ws.js';

// Issue 17 item 3 on a real one-node Slurm: "leave running" leaves the job (before: scancel
// 35 ms later, the journal said left: [] and the screen said it was left), and a cancel —
// by the operator or an outside scancel — holds the cell across a quit and a restart until
// the operator launches it again (before: the next start's autopilot submitted it again).

const { missing, cluster } = slurmForFile(beforeAll, afterAll);

const open: Supervisor[] = [];
const start = async (root: string): Promise<Supervisor> => {
  const s = await openSupervisor({ root, config: await loadConfig(root), rand: () => 0.5 });
  open.push(s);
  return s;
};
afterEach(async () => {
  for (const s of open.splice(0)) await s.close({ cancel: true });
});

type Ev<T extends JournalEvent['type']> = Extract<JournalEvent, { type: T }>;
const journal = async (root: string): Promise<JournalEvent[]> => (await readJournal(root)).events;
const of = async <T extends JournalEvent['type']>(root: string, t: T): Promise<Ev<T>[]> => (await journal(root)).filter((e): e is Ev<T> => e.type === t);
const jobState = (id: string): string => jobStateOf(cluster(), id);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const running = async (root: string): Promise<LaunchEvent> => {
  await until('a job running', async () => {
    const l = (await of(root, 'launch'))[0];
    return !!l?.jobId && jobState(l.jobId) === 'RUNNING';
  });
  return (await of(root, 'launch'))[0]!;
};

describe.skipIf(missing)('leave and hold with Slurm jobs', () => {
  it('leave running leaves the job, journals it with its id, and the next start adopts it at attempt 1', async () => {
    const root = slurmWorkspace({ speed: 1 });
    const s = await start(root);
    void s.launch('ch01', 'research').catch(() => undefined);
    const l = await running(root);
    const left = await s.close({ leave: true, reason: 'quit' });
    expect(left).toMatchObject([{ runId: l.runId, unit: 'ch01', step: 'research', executor: 'slurm', jobId: l.jobId }]);
    await sleep(1500);
    // Not cancelled: still running, or finished on its own.
    expect(jobState(l.jobId!)).toMatch(/^(RUNNING|COMPLETING|COMPLETED)$/);
    const stop = (await of(root, 'session')).filter((e) => e.kind === 'stop').at(-1)!;
    expect(stop.left).toMatchObject([{ runId: l.runId, jobId: l.jobId }]);
    expect(await of(root, 'exit')).toEqual([]);
    const s2 = await start(root);
    await until('the adopted job ends', async () => (await of(root, 'exit')).length === 1, 120_000);
    expect((await of(root, 'exit'))[0]).toMatchObject({ runId: l.runId, class: 'SUCCESS' });
    expect(await of(root, 'launch')).toHaveLength(1);
    await s2.close();
  }, 180_000);

  it('an outside scancel holds the cell after a quit and a restart; launching it by hand releases the hold, journalled', async () => {
    const root = slurmWorkspace({ speed: 1 });
    const s = await start(root);
    const r = s.launch('ch01', 'research');
    const l = await running(root);
    cluster().run(['scancel', l.jobId!]);
    expect((await r).outcome).toBe('cancelled');
    expect(s.snapshot().ledger.cells['ch01/research']!.hold?.why).toMatch(/cancelled outside checkroom/);
    await s.close();
    open.splice(open.indexOf(s), 1);
    // A new session: autopilot does not submit the held cell again.
    const s2 = await start(root);
    await s2.setAutopilot(true);
    await sleep(2500);
    expect(await of(root, 'launch')).toHaveLength(1);
    expect(s2.snapshot().ledger.cells['ch01/research']!.hold).not.toBeNull();
    await s2.setAutopilot(false);
    // The operator's own launch releases it, and says so in the journal.
    void s2.launch('ch01', 'research').catch(() => undefined);
    await until('a second launch', async () => (await of(root, 'launch')).length === 2);
    expect((await of(root, 'decision')).filter((d) => d.kind === 'release')).toMatchObject([{ unit: 'ch01', step: 'research', note: 'launched by the operator' }]);
  }, 180_000);
});
