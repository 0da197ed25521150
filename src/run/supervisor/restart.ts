import type { WorkspaceConfig } from '../../pipeline/config/types.js';
import type { NewJournalEvent } from '../journal/journal.js';
import type { Ledger, LiveRun } from '../journal/ledger.js';
import { isSameProcessAlive } from '../process/proc.js';
import { outputStamp } from '../attempt/output-stamp.js';
import { endRecorded, type Ended } from '../journal/recorded-run.js';
import type { SupervisorEvent } from './types.js';

// A checkroom starting (or an observer taking over) finds launches without
// an exit in the journal: runs of a checkroom that quit with "leave running", was killed, or
// lost its terminal. "Leave running" means it (docs/reliability.md). A run whose process is the
// very one recorded (pid and start time match) is ADOPTED — watched to its end, decided by
// its marker. Only the rest is settled here, each said in a message and in the journal:
// - dead, but helpers still running → those are stopped (`reaped`): its group and, by the
//   run token in their environment, the descendants that left the group with setsid
//   (the group alone let them survive a kill -9 for good);
// - its pid now belongs to another process (start time differs) → that process and its group
//   are left alone (`foreign`); processes carrying the run's token are still stopped;
// - nothing left of it → closed (`gone`).
// The journal's `reaped` event says which: the outcome, the leader's state, the pids stopped.
// The output of a settled run is left where it is, for triage.

export interface Settled {
  /** Runs still alive as recorded: the caller watches them (supervisor-adopt.ts). */
  adopt: LiveRun[];
  /** One line for the operator, or null when the journal had no open run. */
  summary: string | null;
}

const who = (run: LiveRun): string => `${run.unit} ${run.step}: run ${run.runId} of an earlier checkroom (pid ${run.pid ?? '-'})`;

const n = (k: number): string => `${k} process${k === 1 ? '' : 'es'}`;

/** What became of it, in words. */
const fate = (e: Ended, alive: boolean): string => {
  if (alive && e.outcome === 'reaped') return `was still running but its step is no longer in checkroom.yaml: it was stopped (${n(e.stopped.length)})`;
  const leftAlone =
    e.leader === 'foreign' ? 'its pid now belongs to another process (start time differs): that process was left alone' : e.leader === 'unproven' ? 'its pid cannot be proven its own (no start time recorded): that process was left alone' : '';
  if (e.outcome === 'reaped') return `had ended, but ${n(e.stopped.length)} of its run (its group or its run token) were still running: they were stopped${leftAlone ? `; ${leftAlone}` : ''}`;
  return leftAlone ? `had ended and ${leftAlone}` : 'had ended';
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
    const ended = await endRecorded(run, grace);
    const { outcome } = ended;
    await append({ type: 'reaped', at: now(), runId: run.runId, pid: run.pid, outcome, leader: ended.leader, stopped: ended.stopped, output: outputStamp(run.outputPath) });
    settled.push(`${run.unit} ${run.step} (${outcome})`);
    emit({ type: 'reaped', runId: run.runId, unit: run.unit, step: run.step, outcome, message: `${who(run)} ${fate(ended, alive)}; its output is left for triage` });
  }
  const parts = [
    ...(adopt.length ? [`adopted ${adopt.length} run${adopt.length === 1 ? '' : 's'} left running: ${adopt.map((r) => `${r.unit} ${r.step} (pid ${r.pid})`).join(', ')} — watched to the end, the marker decides`] : []),
    ...(settled.length ? [`closed ${settled.length} run${settled.length === 1 ? '' : 's'} of an earlier checkroom: ${settled.join(', ')}`] : []),
  ];
  return { adopt, summary: parts.length ? parts.join('; ') : null };
}
