import type { WorkspaceConfig } from '../pipeline/config-types.js';
import type { NewJournalEvent } from './journal.js';
import type { Ledger, LiveRun } from './ledger.js';
import { isSameProcessAlive, reapGroup } from './proc.js';
import type { SupervisorEvent } from './supervisor-types.js';

// A checkroom starting (or an observer taking over, issue 8 item 5) finds launches without
// an exit in the journal: runs of a checkroom that quit with "leave running", was killed, or
// lost its terminal. Issue 8 item 4: "leave running" means it. A run whose process is the
// very one recorded (pid and start time match) is ADOPTED — watched to its end, decided by
// its marker. Only the rest is settled here, each said in a message and in the journal:
// - dead, but helpers of its group still running → those are stopped (`reaped`);
// - its pid now belongs to another process (start time differs) → left alone (`foreign`);
// - nothing left of it → closed (`gone`).
// The output of a settled run is left where it is, for triage.

export interface Settled {
  /** Runs still alive as recorded: the caller watches them (supervisor-adopt.ts). */
  adopt: LiveRun[];
  /** One line for the operator, or null when the journal had no open run. */
  summary: string | null;
}

const who = (run: LiveRun): string => `${run.unit} ${run.step}: run ${run.runId} of an earlier checkroom (pid ${run.pid ?? '-'})`;

const FATE: Record<string, string> = {
  reaped: 'had ended, but processes of its group were still running: they were stopped',
  foreign: 'had ended and its pid now belongs to another process (start time differs): that process was left alone',
  gone: 'had ended',
};

export async function settleEarlierRuns(
  ledger: Ledger,
  config: WorkspaceConfig,
  now: () => number,
  append: (e: NewJournalEvent) => Promise<void>,
  emit: (e: SupervisorEvent) => void,
  canAdopt: (run: LiveRun) => boolean,
): Promise<Settled> {
  const adopt: LiveRun[] = [];
  const settled: string[] = [];
  for (const run of ledger.liveRuns) {
    const alive = run.pid !== null && run.procStart !== null && isSameProcessAlive(run.pid, run.procStart);
    if (alive && canAdopt(run)) {
      await append({ type: 'adopted', at: now(), runId: run.runId, pid: run.pid!, by: process.pid });
      adopt.push(run);
      continue;
    }
    const grace = config.agents[run.agent]?.graceMs ?? 2000;
    // Alive but not adoptable (its step left checkroom.yaml): stopped, since nothing here
    // could decide its end. Without a recorded start time a live pid cannot be proven ours.
    const outcome = run.pid === null ? 'gone' : await reapGroup(run.pid, run.procStart, grace);
    await append({ type: 'reaped', at: now(), runId: run.runId, pid: run.pid, outcome });
    const what = alive && outcome === 'reaped' ? 'was still running but its step is no longer in checkroom.yaml: it was stopped' : (FATE[outcome] ?? outcome);
    settled.push(`${run.unit} ${run.step} (${outcome})`);
    emit({ type: 'reaped', runId: run.runId, unit: run.unit, step: run.step, outcome, message: `${who(run)} ${what}; its output is left for triage` });
  }
  const parts = [
    ...(adopt.length ? [`adopted ${adopt.length} run${adopt.length === 1 ? '' : 's'} left running: ${adopt.map((r) => `${r.unit} ${r.step} (pid ${r.pid})`).join(', ')} — watched to the end, the marker decides`] : []),
    ...(settled.length ? [`closed ${settled.length} run${settled.length === 1 ? '' : 's'} of an earlier checkroom: ${settled.join(', ')}`] : []),
  ];
  return { adopt, summary: parts.length ? parts.join('; ') : null };
}
