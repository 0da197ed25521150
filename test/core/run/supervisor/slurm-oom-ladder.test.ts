import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { slurmForFile } from '../../../helpers/slurm.js';
import { slurmWorkspace } from '../../../helpers/slurm-ws.js';
import { loadConfig } from '../../../../src/pipeline/config/config.js';
import { readJournal, type JournalEvent } from '../../../../src/run/journal/journal.js';
import { openSupervisor } from '../../../../src/run/supervisor/supervisor.js';

// The OOM ladder through the real one-node Slurm (issue 22 item 5): each job is submitted with
// --mem at the ladder's step. The test cluster has no cgroup (linuxproc, no task plugin), so
// Slurm does not kill for memory here: the agent reads the --mem Slurm hands it
// (SLURM_MEM_PER_NODE) and, needing more, exits 137 with slurmstepd's oom-kill words. What this
// proves is checkroom's part: the sign classed OOM_KILLED and the next job one step up.

const { missing, cluster } = slurmForFile(beforeAll, afterAll);
const HOG = join(import.meta.dirname, '..', '..', '..', 'fixtures', 'hog-agent.mjs');

describe.skipIf(missing)('the OOM ladder on Slurm (--mem told to the job, not enforced without a cgroup)', () => {
  it('a job over its --mem is OOM_KILLED and the next job asks for the next step, until it fits', async () => {
    const root = slurmWorkspace({ researcher: `[node, ${JSON.stringify(HOG)}, '{output}', '{marker}', '{unit}', ch01=300]` });
    appendFileSync(join(root, 'checkroom.yaml'), 'steps:\n  - id: research\n    resources: { memory_ladder: [128M, 256M, 512M] }\n');
    for (const [k, v] of Object.entries(cluster().env)) if (k.startsWith('SLURM')) process.env[k] = v;
    const s = await openSupervisor({ root, config: await loadConfig(root), rand: () => 0.5 });
    try {
      expect((await s.launch('ch01', 'research')).outcome).toBe('done');
    } finally {
      await s.close({ cancel: true });
    }
    const ev = (await readJournal(root)).events;
    const launches = ev.filter((e): e is Extract<JournalEvent, { type: 'launch' }> => e.type === 'launch');
    expect(launches.map((l) => [l.executor, l.resources?.memory])).toEqual([['slurm', '128M'], ['slurm', '256M'], ['slurm', '512M']]);
    expect(ev.flatMap((e) => (e.type === 'exit' ? [e.class] : []))).toEqual(['OOM_KILLED', 'OOM_KILLED', 'SUCCESS']);
    // Slurm itself recorded each job's memory: the --mem reached the scheduler.
    for (const [l, mb] of launches.map((x, i) => [x, [128, 256, 512][i]] as const)) {
      const shown = cluster().run(['scontrol', 'show', 'job', '-o', l.jobId!]).out;
      if (shown) expect(shown).toMatch(new RegExp(`MinMemoryNode=${mb}M`));
    }
  }, 120_000);
});
