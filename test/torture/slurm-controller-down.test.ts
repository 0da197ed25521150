import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/pipeline/config/config.js';
import { readJournal, type JournalEvent } from '../../src/run/journal/journal.js';
import { openSupervisor, type SupervisorEvent } from '../../src/run/supervisor/supervisor.js';
import { slurmForFile } from '../helpers/slurm.js';
import { slurmWorkspace } from '../helpers/slurm-ws.js';

// Torture (issue 12): the Slurm controller is gone. sbatch cannot submit; that is the
// cluster's fault, not the agent's — INFRA, counted by the executor's breaker, capped, and
// never a launch that burns the agent's budgets or opens its breaker.

// One cluster for this file, started and stopped by the shared helper (test/helpers/slurm.ts).
const { missing, cluster } = slurmForFile(beforeAll, afterAll);

describe.skipIf(missing)('Slurm controller down', () => {
  it('every submission is INFRA: the infra cap escalates, the agent breaker never sees a failure', async () => {
    await cluster().kill('slurmctld');
    const root = slurmWorkspace({ limits: ['  backoff_base: 100ms', '  backoff_max: 200ms', '  caps: { INFRA: 2 }'], breaker: '{ threshold: 5, cooldown: 1s }' });
    const events: SupervisorEvent[] = [];
    const s = await openSupervisor({ root, config: await loadConfig(root), rand: () => 0.5, onEvent: (e) => events.push(e) });
    try {
      const r = await s.launch('ch01', 'research');
      expect(r.outcome).toBe('escalated');
      expect(r.class).toBe('INFRA');
      const ev = (await readJournal(root)).events;
      const exits = ev.filter((e): e is Extract<JournalEvent, { type: 'exit' }> => e.type === 'exit');
      expect(exits.map((e) => e.class)).toEqual(['INFRA', 'INFRA']);
      expect(exits[0]!.errorTail.join('\n')).toMatch(/sbatch refused the job/);
      const l = s.snapshot().ledger;
      expect(l.consecutiveFailures).toBe(0);
      expect(l.agents.researcher?.breaker.consecutiveFailures ?? 0).toBe(0);
      expect(l.agents['slurm:infra']!.breaker.consecutiveFailures).toBe(2);
    } finally {
      await s.close({ cancel: true });
    }
  }, 240_000);
});
