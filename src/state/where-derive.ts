import type { BatchDef, Cell, PhaseProgress, PipelineDef } from '../types.js';
import type { CheckpointDoc } from '../checkpoint/types.js';
import type { PlanShape } from '../plan/unit-plan.js';
import type { CutMap } from '../triage/cut-evidence.js';
import { countKind, emptyWhere, unitRegressions, whereKind, type Regression, type WhereTally } from './where-cells.js';
import { stoppedAt, type StoppedAt, type WhereRow } from './where.js';

// Where the work stopped, from the tallies: the full derivation builds the
// tallies in one pass here; the live one (live-derive.ts) keeps the same tallies by delta and
// calls `stopOf` with them, so both give the same answer.

/** checkpoint.md's header claim, or null without a checkpoint. */
export const claimOf = (doc: CheckpointDoc | null): { phase: number | null; batch: number | null } | null =>
  doc ? { phase: doc.currentPhase, batch: doc.currentBatch } : null;

/** The rows of the decision: phases proven by global files count those files. */
export function stopOf(
  pipeline: PipelineDef,
  phases: readonly PhaseProgress[],
  byPhase: ReadonlyMap<number, WhereTally>,
  batches: readonly BatchDef[],
  byBatch: ReadonlyMap<number | null, WhereTally>,
  batchedPhase: number,
  doc: CheckpointDoc | null,
): StoppedAt {
  const phaseRows: WhereRow[] = pipeline.phases.map((p) => {
    if (!p.artifacts.length) return { id: p.id, ...(byPhase.get(p.id) ?? emptyWhere()) };
    const prog = phases.find((x) => x.id === p.id);
    return { id: p.id, ...emptyWhere(), total: prog?.total ?? 0, done: prog?.done ?? 0 };
  });
  const batchRows: WhereRow[] = batches.map((b) => ({ id: b.id, ...(byBatch.get(b.id) ?? emptyWhere()) }));
  return stoppedAt({ phases: phaseRows, batches: batchRows, batchedPhase, claim: claimOf(doc) });
}

const NONE: ReadonlySet<string> = new Set();

/** One unit's regressions and the kind of each of its cells. */
export function unitWhere(cells: readonly Cell[], shape: Pick<PlanShape, 'dependents' | 'stepById'>, cuts: CutMap | undefined) {
  const regressions = unitRegressions(cells, shape);
  const lost = regressions.length ? new Set(regressions.map((r) => r.step)) : NONE;
  const cut = cuts?.size ? cuts : undefined;
  return { regressions, kinds: cells.map((c) => whereKind(c, lost, cut)) };
}

/** The whole derivation's part: every unit once. */
export function deriveWhere(o: {
  shape: PlanShape;
  cells: readonly Cell[];
  phases: readonly PhaseProgress[];
  batches: readonly BatchDef[];
  batchOf: ReadonlyMap<string, number>;
  checkpoint: CheckpointDoc | null;
  cuts?: CutMap;
}): { stoppedAt: StoppedAt; regressions: Regression[] } {
  const byPhase = new Map<number, WhereTally>();
  const byBatch = new Map<number | null, WhereTally>();
  const tally = <K>(m: Map<K, WhereTally>, k: K): WhereTally => {
    let t = m.get(k);
    if (!t) m.set(k, (t = emptyWhere()));
    return t;
  };
  const regressions: Regression[] = [];
  // Cells come unit by unit, each unit's in step order (reconcile.ts).
  for (let i = 0; i < o.cells.length; ) {
    let j = i;
    while (j < o.cells.length && o.cells[j].unit === o.cells[i].unit) j++;
    const cells = o.cells.slice(i, j);
    const w = unitWhere(cells, o.shape, o.cuts);
    for (const r of w.regressions) regressions.push(r);
    const batch = tally(byBatch, o.batchOf.get(cells[0].unit) ?? null);
    for (let n = 0; n < cells.length; n++) {
      const ph = o.shape.stepById.get(cells[n].step)?.phase ?? 0;
      countKind(tally(byPhase, ph), w.kinds[n], 1);
      if (ph === o.shape.phaseOfBatches) countKind(batch, w.kinds[n], 1);
    }
    i = j;
  }
  return { stoppedAt: stopOf(o.shape.pipeline, o.phases, byPhase, o.batches, byBatch, o.shape.phaseOfBatches, o.checkpoint), regressions };
}
