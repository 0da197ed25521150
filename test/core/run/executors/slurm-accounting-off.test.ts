import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { slurmFinished, slurmStarted } from '../../../../src/run/executors/slurm-account.js';
import type { JobJournalEvent } from '../../../../src/run/journal/job-events.js';
import { exits, journal, launches, slurmForFile, supervisorsForEach, until } from '../../../helpers/slurm.js';
import { slurmWorkspace } from '../../../helpers/slurm-ws.js';

// Without slurmdbd (issue 22 item 2): the one-node cluster of test/helpers/slurm.ts has no
// accounting storage, so sacct says so; checkroom journals "accounting is off" once per
// finished job and keeps its own figures (the queue wait from scontrol, the run time).

const { missing, cluster } = slurmForFile(beforeAll, afterAll);
const start = supervisorsForEach(afterEach);

describe.skipIf(missing)('Slurm without slurmdbd', () => {
  it('a finished job is journalled once as accounting off, with its node and queue wait from scontrol', async () => {
    const root = slurmWorkspace();
    const s = await start(root);
    expect((await s.launch('ch01', 'research')).outcome).toBe('done');
    let jobs: JobJournalEvent[] = [];
    await until('the job accounted', async () => {
      jobs = (await journal(root)).filter((e): e is JobJournalEvent => e.type === 'job');
      return jobs.some((e) => e.phase === 'finished');
    });
    const [l] = launches(await journal(root));
    const started = jobs.filter((e) => e.phase === 'started');
    const finished = jobs.filter((e) => e.phase === 'finished');
    expect(started).toHaveLength(1);
    expect(started[0]).toMatchObject({ jobId: l!.jobId, node: cluster().node });
    expect(started[0]!.queueWaitMs).toBeGreaterThanOrEqual(0);
    expect(finished).toHaveLength(1);
    expect(finished[0]).toMatchObject({ jobId: l!.jobId, accounting: 'off', node: cluster().node });
    expect(finished[0]!.note).toMatch(/^sacct: .*accounting storage is disabled/i);
    expect(exits(await journal(root))[0]!.queueWaitMs).toBe(started[0]!.queueWaitMs);
    // Asked directly: the same answer, and the start from scontrol.
    expect(await slurmFinished(l!.jobId!, cluster().env, null)).toMatchObject({ accounting: 'off' });
    expect(await slurmStarted(l!.jobId!, cluster().env)).toMatchObject({ node: cluster().node, queueWaitMs: started[0]!.queueWaitMs });
  }, 120_000);
});
