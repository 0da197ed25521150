import type { WorkspaceState } from '../types.js';
import type { Regression } from '../state/where-cells.js';
import type { StoppedAt } from '../state/where.js';
import { regressionsEarlier, stopOfState } from '../state/where-words.js';

// Step 2 of the recovery flow (docs/recovery.md, `checkroom recover`): where the work stopped — phase,
// batch, the last step done and what was in progress — and, listed apart, the regressions.
// The phase and batch are the domain's (state/where.ts), read here, not
// derived again.

export interface StopReport {
  phase: number | null;
  phaseName: string | null;
  batch: number | null;
  /** How the phase and batch were found: runs, checkpoint.md's claim the disk agrees with, or the disk. */
  from: StoppedAt['from'];
  checkpointSays: StoppedAt['checkpointSays'] | null;
  disagreement: string | null;
  /** Cells whose proof was lost (in unit order): regressions, not the interruption point. */
  regressions: Regression[];
  /** Every regression lies before where the work stopped. */
  regressionsEarlier: boolean;
  lastDone: { unit: string; step: string; path: string; mtimeMs: number } | null;
  inProgress: { unit: string; step: string; status: string; path: string }[];
}

/** The report's "where it stopped" from the reconciled state. */
export function stopOf(state: WorkspaceState): StopReport {
  let lastDone: StopReport['lastDone'] = null;
  const inProgress: StopReport['inProgress'] = [];
  const fileStep = new Set(state.pipeline.steps.filter((s) => s.kind === 'file').map((s) => s.id));
  const lost = new Set((state.regressions ?? []).map((r) => `${r.unit}/${r.step}`));
  for (const c of state.cells) {
    // Entry cells share one file's mtime: only a step's own file says when it finished.
    if (c.status === 'done' && c.exists && fileStep.has(c.step) && (!lastDone || c.mtimeMs > lastDone.mtimeMs)) lastDone = { unit: c.unit, step: c.step, path: c.path, mtimeMs: c.mtimeMs };
    if (lost.has(`${c.unit}/${c.step}`)) continue;
    if (c.status === 'partial' || c.status === 'running' || (c.checkpoint === 'in_progress' && c.status !== 'done')) inProgress.push({ unit: c.unit, step: c.step, status: c.status, path: c.path });
  }
  // Where the work was when it was interrupted, not the first batch with a lost marker.
  const { phase, batch } = stopOfState(state);
  const at = state.stoppedAt;
  return {
    phase: phase?.id ?? null,
    phaseName: phase?.name ?? null,
    batch,
    from: at?.from ?? 'disk',
    checkpointSays: at?.checkpointSays ?? null,
    disagreement: at?.disagreement ?? null,
    regressions: state.regressions ?? [],
    regressionsEarlier: regressionsEarlier(state),
    lastDone,
    inProgress,
  };
}
