import type { BatchDef, Cell, NextStep, PartialFile, PipelineDef } from '../types.js';
import { cellKey } from '../types.js';
import { planShape, rankOf, said, unitPlan, type UnitPlan } from './unit-plan.js';

export { halfProductEntry } from './half-product.js';

// The next-step plan (docs/domain.md, What goes wrong, recovery
// priorities): 1 — failures that block downstream work, most-blocking first;
// 2 — half-products, by verdict; 3 — not-started cells whose dependencies are done,
// respecting batches (a later batch's new work waits for the earlier ones) and phases
// (a barrier phase must be complete for every unit before the next phase starts).
// Never plans a step whose dependencies are not done.
// Everything that depends on one unit is its fragment (unit-plan.ts); what is global — the
// phase and batch gates, the order — is here, shared with the live view's incremental
// plan (state/live-derive.ts), so both give the same plan.

export interface PlanInput {
  pipeline: PipelineDef;
  units: readonly string[];
  cells: readonly Cell[];
  partials: readonly PartialFile[];
  batches: readonly BatchDef[];
  /** Phase id → missing global artifacts. */
  missingArtifacts: ReadonlyMap<number, string[]>;
  /**
   * Opt-in (scenario 3): a long-memory entry whose work is evidently finished — claimed ✅ in
   * checkpoint.md, or the final chapter already written — but missing on disk gets a
   * priority-1 `rebuild_memory` from the best source instead of a plain priority-3 `run`.
   */
  rebuildMemory?: boolean;
}

/** O(1) cell lookup: reconcile lays cells out unit-major in pipeline step order. */
export function cellIndex(cells: readonly Cell[], units: readonly string[], pipeline: PipelineDef): (unit: string, step: string) => Cell | undefined {
  const n = pipeline.steps.length;
  const stepIdx = new Map(pipeline.steps.map((s, i) => [s.id, i]));
  const unitIdx = new Map(units.map((u, i) => [u, i]));
  const laidOut = cells.length === units.length * n && cells.every((c, i) => c.unit === units[Math.floor(i / n)] && c.step === pipeline.steps[i % n].id);
  if (!laidOut) {
    const m = new Map(cells.map((c) => [cellKey(c.unit, c.step), c]));
    return (u, s) => m.get(cellKey(u, s));
  }
  return (u, s) => {
    const ui = unitIdx.get(u);
    const si = stepIdx.get(s);
    return ui === undefined || si === undefined ? undefined : cells[ui * n + si];
  };
}

/** Entries for phases whose global evidence (outline, shared resources) is missing. */
export function missingEntries(pipeline: PipelineDef, missingArtifacts: ReadonlyMap<number, string[]>, started: boolean): NextStep[] {
  const out: NextStep[] = [];
  for (const [phaseId, missing] of missingArtifacts) {
    if (missing.length === 0) continue;
    const phase = pipeline.phases.find((p) => p.id === phaseId);
    out.push({
      priority: started ? 1 : 3,
      unit: null,
      step: null,
      action: started ? 'rebuild_memory' : 'complete_phase',
      ...said({ k: 'phase_missing', phase: phaseId, name: phase?.name ?? '', missing, started }),
      blocks: 0,
    });
  }
  return out;
}

/** Phases closed for new work: an earlier barrier phase is unfinished or misses evidence. */
export function blockedPhases(pipeline: PipelineDef, missingArtifacts: ReadonlyMap<number, string[]>, unfinished: (phase: number) => boolean): Set<number> {
  const blocked = new Set<number>();
  for (const phase of pipeline.phases) {
    for (const e of pipeline.phases) {
      if (e.id >= phase.id || !e.barrier) continue;
      if ((missingArtifacts.get(e.id) ?? []).length > 0 || unfinished(e.id)) blocked.add(phase.id);
    }
  }
  return blocked;
}

/** Index of the first batch not yet open: a batch opens once every earlier batch is settled (done or escalated). */
export function firstClosedBatch(batches: readonly BatchDef[], unsettled: (unit: string) => boolean): number {
  for (let i = 0; i < batches.length; i++) if (batches[i].units.some(unsettled)) return i;
  return batches.length;
}

/** Where a unit's entries sort: batch order first (unbatched last), then unit order. */
export function unitRanker(batches: readonly BatchDef[], units: readonly string[], batchOf: (unit: string) => number | null): (unit: string) => number {
  const batchOrder = new Map(batches.map((b, i) => [b.id, i]));
  const unitIndex = new Map(units.map((u, i) => [u, i]));
  return (u) => {
    const b = batchOf(u);
    return rankOf(b === null ? batches.length : (batchOrder.get(b) ?? batches.length), unitIndex.get(u) ?? 0, 0);
  };
}

/** Priority 1 order: most-blocking first, then plan rank. */
export const byBlocks =
  (rank: (e: NextStep) => number) =>
  (a: NextStep, b: NextStep): number =>
    b.blocks - a.blocks || rank(a) - rank(b);

export function planNext(input: PlanInput): NextStep[] {
  const { pipeline, units, cells } = input;
  const shape = planShape(pipeline);
  const at = cellIndex(cells, units, pipeline);
  const partialsOf = new Map<string, PartialFile[]>();
  for (const p of input.partials) partialsOf.set(p.unit, [...(partialsOf.get(p.unit) ?? []), p]);
  const batchOfUnit = new Map<string, number | null>();
  for (const c of cells) if (!batchOfUnit.has(c.unit)) batchOfUnit.set(c.unit, c.batch);
  const unitRank = unitRanker(input.batches, units, (u) => batchOfUnit.get(u) ?? null);
  const rank = (e: NextStep): number => unitRank(e.unit!) + (shape.stepIndex.get(e.step!) ?? 0);

  const frags = new Map<string, UnitPlan>();
  let started = false;
  const unfinished = new Set<number>();
  for (const u of units) {
    const own = pipeline.steps.map((s) => at(u, s.id));
    const present = own.filter((c): c is Cell => !!c);
    if (!present.length) continue;
    for (const c of present) {
      if (c.status !== 'not_started') started = true;
      if (c.status !== 'done') unfinished.add(shape.stepById.get(c.step)?.phase ?? 0);
    }
    frags.set(u, unitPlan(shape, u, own, partialsOf.get(u) ?? [], input.rebuildMemory ?? false));
  }
  const byRank = [...frags.keys()].sort((a, b) => unitRank(a) - unitRank(b));
  const phaseBlocked = blockedPhases(pipeline, input.missingArtifacts, (ph) => unfinished.has(ph));
  const openUpTo = firstClosedBatch(input.batches, (u) => frags.get(u)?.unsettled ?? false);
  const batchIdx = (u: string): number => Math.floor(unitRank(u) / 1e9);
  const open = (u: string, phase: number): boolean => !phaseBlocked.has(phase) && (phase !== shape.phaseOfBatches || batchIdx(u) <= openUpTo);

  const plan = missingEntries(pipeline, input.missingArtifacts, started);
  plan.push(...[...frags.values()].flatMap((f) => f.p1).sort(byBlocks(rank)));
  for (const f of frags.values()) plan.push(...f.rebuild);
  for (const u of byRank) plan.push(...frags.get(u)!.p2);
  for (const u of byRank) for (const c of frags.get(u)!.p3) if (open(u, c.phase)) plan.push(c.entry);
  return plan;
}
