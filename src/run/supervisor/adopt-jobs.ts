import { cellKey } from '../../types.js';
import { executorFor } from '../executors/registry.js';
import { jobOf } from '../executors/types.js';
import type { Ledger, LiveRun } from '../journal/ledger.js';
import { buildCommand, targetOf, type CellTarget } from '../attempt/launch-spec.js';
import { provenDone } from '../attempt/launch-proof.js';
import type { AdoptedRun } from '../attempt/cell-core.js';
import type { WorkspaceConfig } from '../../pipeline/config/types.js';
import type { CellRunner, Emit, JournalPort, WorkspaceRef } from './ports.js';

// After a restart: runs whose agent went to a cluster are still running there, or
// finished while no checkroom watched. They are adopted — watched through their executor
// and carried on with the same classifying, counting and marker proof — instead of being
// reaped (local process groups, supervisor-restart.ts) or launched twice.

/** The live runs a restart adopts, and the rest (reaped as before). */
export const splitAdoptable = (ledger: Ledger, config: WorkspaceConfig): { adopt: LiveRun[]; reap: LiveRun[] } => {
  const adopt: LiveRun[] = [];
  const reap: LiveRun[] = [];
  for (const run of ledger.liveRuns) {
    const job = jobOf(run);
    const agent = config.agents[run.agent];
    if (job && agent && executorFor(agent).name === job.executor && executorFor(agent).adopt) adopt.push(run);
    else reap.push(run);
  }
  return { adopt, reap };
};

export interface Adoption {
  key: string;
  target: CellTarget;
  adopted: AdoptedRun;
}

/** Re-attach to one run's job. */
export async function adoptRun(root: string, config: WorkspaceConfig, run: LiveRun): Promise<Adoption> {
  const t = targetOf(root, config, run.unit, run.step);
  const ex = executorFor(t.agent);
  const built = buildCommand(root, run.unit, t, { attempt: run.attempt, backup: '', lastError: '' });
  const handle = await ex.adopt!(
    { run, jobId: run.jobId! },
    {
      runId: run.runId,
      argv: run.argv,
      cwd: run.cwd,
      env: built.env,
      secretNames: built.secretNames,
      declaredSecrets: built.declaredSecrets,
      logPath: run.logPath,
      outputPath: run.outputPath,
      idleTimeoutMs: t.agent.idleTimeoutMs,
      timeoutMs: t.agent.timeoutMs,
      graceMs: t.agent.graceMs,
      root,
      unit: run.unit,
      step: run.step,
      attempt: run.attempt,
      agent: t.agent,
      proven: () => provenDone(root, config.pipeline, t, run.unit),
    },
  );
  return { key: cellKey(run.unit, run.step), target: t, adopted: { handle, runId: run.runId, attempt: run.attempt, argv: run.argv, logPath: run.logPath, startedAt: run.at } };
}

export interface JobAdoption {
  journal: Pick<JournalPort, 'append' | 'now'>;
  emit: Emit;
  /** fly: the adopted run goes in flight, runCell carries it on from its handle; cancel: a stop that had not landed is asked again (a shutdown's: no hold). */
  cells: CellRunner;
  /** Run ids whose stop had not landed when their checkroom ended. */
  pendingStops: ReadonlySet<string>;
}

/** Adopt each run; one that cannot be (its agent is gone from checkroom.yaml) is closed as gone. */
export async function adoptRuns({ root, config }: WorkspaceRef, runs: readonly LiveRun[], { journal, emit, cells, pendingStops }: JobAdoption): Promise<void> {
  for (const run of runs) {
    try {
      const a = await adoptRun(root, config, run);
      void cells.fly(run.unit, run.step, a.target, a.adopted);
      if (pendingStops.has(run.runId)) {
        emit({ type: 'notice', message: `${run.unit} ${run.step}: the stop of job ${run.jobId ?? '-'} had not landed when the last checkroom ended; asking again until it does` });
        cells.cancel(a.key, 'shutdown');
      }
    } catch (err) {
      await journal.append({ type: 'reaped', at: journal.now(), runId: run.runId, pid: null, outcome: 'gone' });
      emit({ type: 'notice', message: `${run.unit} ${run.step}: job ${run.jobId ?? '-'} of an earlier checkroom cannot be adopted: ${(err as Error).message}` });
    }
  }
}
