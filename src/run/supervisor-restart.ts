import type { WorkspaceConfig } from '../pipeline/config-types.js';
import type { NewJournalEvent } from './journal.js';
import type { Ledger } from './ledger.js';
import { reapGroup } from './proc.js';
import type { SupervisorEvent } from './supervisor-types.js';

// After a checkroom died (kill -9), the journal holds launches without an exit. Their agents
// may still run in their own process groups: stop what is still ours (pid and start time
// match, or newer members of the group), leave the output where it is for triage — a
// half-product the core shows as partial — and close each run with a `reaped` event.

export async function reapDeadRuns(
  ledger: Ledger,
  config: WorkspaceConfig,
  now: () => number,
  append: (e: NewJournalEvent) => Promise<void>,
  emit: (e: SupervisorEvent) => void,
): Promise<void> {
  for (const run of ledger.liveRuns) {
    const grace = config.agents[run.agent]?.graceMs ?? 2000;
    const outcome = run.pid === null ? 'gone' : await reapGroup(run.pid, run.procStart, grace);
    await append({ type: 'reaped', at: now(), runId: run.runId, pid: run.pid, outcome });
    const what =
      outcome === 'reaped' ? 'was still running: its process group was stopped' : outcome === 'foreign' ? 'pid now belongs to another process: left alone' : 'had already ended';
    emit({
      type: 'reaped',
      runId: run.runId,
      unit: run.unit,
      step: run.step,
      outcome,
      message: `${run.unit} ${run.step}: run ${run.runId} of an earlier checkroom (pid ${run.pid ?? '-'}) ${what}; its output is left for triage`,
    });
  }
}
