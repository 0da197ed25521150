import type { BatchDef, Cell, NextStep, PartialFile, PipelineDef, PlanAction } from '../types.js';
import { cellKey } from '../types.js';
import { entryExpected, rebuildSourceOf } from '../memory/sources.js';
import type { Why } from '../reasons/why.js';
import { say } from '../reasons/say.js';

/** A plan entry's reason, in English and as data. */
const said = (why: Why): { reason: string; why: Why } => ({ reason: say(why), why });

// The next-step plan (issue "checkroom core", item 7; DOMAIN.md section 5, recovery
// priorities): 1 — failures that block downstream work, most-blocking first;
// 2 — half-products, by verdict; 3 — not-started cells whose dependencies are done,
// respecting batches (a later batch's new work waits for the earlier ones) and phases
// (a barrier phase must be complete for every unit before the next phase starts).
// Never plans a step whose dependencies are not done.

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

// A cell no longer holds its batch back once it is done or waits on a human: escalated,
// blocked by an escalation, or a half-product that looks complete and needs the operator's
// keep-or-redo decision (DOMAIN.md scenario 5: skip what waits on a human, continue).
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

const settled = (c: Cell): boolean =>
  c.status === 'done' || c.status === 'needs_human' || c.blockedBy.length > 0 || (c.status === 'partial' && c.triage?.verdict === 'maybe_complete');

/**
 * What to do with a half-product, and why, from one decision (issue 8 item 6: the plan said
 * `decide` while its reason said "back up and redo"). Redoing is launchable work: with a
 * dependency not done only a human can decide, and the reason says so instead of the
 * finding's own advice. A file that looks complete is the operator's keep-or-redo call.
 */
export function halfProductEntry(p: PartialFile, waits: readonly string[]): { action: PlanAction; reason: string; why?: Why } {
  const decision: 'redo' | 'keep_or_redo' | 'waits' = p.verdict === 'maybe_complete' ? 'keep_or_redo' : waits.length ? 'waits' : 'redo';
  const action: PlanAction = decision === 'redo' ? 'backup_redo' : 'decide';
  if (!p.why) return { action, reason: `${p.path}: ${p.reason}${decision === 'waits' ? `; it cannot be redone before ${waits.join(', ')} ${waits.length === 1 ? 'is' : 'are'} done: decide` : ''}` };
  return { action, ...said(decision === 'waits' ? { k: 'waits_first', path: p.path, then: p.why, waits: [...waits] } : { k: 'at_path', path: p.path, then: p.why }) };
}

export function planNext(input: PlanInput): NextStep[] {
  const { pipeline, units, cells } = input;
  const stepIndex = new Map(pipeline.steps.map((s, i) => [s.id, i]));
  const stepById = new Map(pipeline.steps.map((s) => [s.id, s]));
  const unitIndex = new Map(units.map((u, i) => [u, i]));
  const at = cellIndex(cells, units, pipeline);
  // Map-shaped view for helpers that take one (rarely called).
  const byKey = { get: (key: string) => at(key.slice(0, key.lastIndexOf('/')), key.slice(key.lastIndexOf('/') + 1)) } as ReadonlyMap<string, Cell>;
  const batchOrder = new Map(input.batches.map((b, i) => [b.id, i]));
  const rank = (c: Cell): number =>
    (c.batch === null ? input.batches.length : (batchOrder.get(c.batch) ?? input.batches.length)) * 1e9 +
    (unitIndex.get(c.unit) ?? 0) * 1e3 +
    (stepIndex.get(c.step) ?? 0);

  // Transitive dependents inside a unit: what a failure holds up.
  const dependents = new Map<string, string[]>();
  for (const s of pipeline.steps) for (const d of s.dependsOn) dependents.set(d, [...(dependents.get(d) ?? []), s.id]);
  const downMemo = new Map<string, string[]>();
  const downstream = (stepId: string): string[] => {
    const hit = downMemo.get(stepId);
    if (hit) return hit;
    const out: string[] = [];
    const walk = (id: string): void => {
      for (const next of dependents.get(id) ?? []) if (!out.includes(next)) (out.push(next), walk(next));
    };
    walk(stepId);
    out.sort((a, b) => (stepIndex.get(a) ?? 0) - (stepIndex.get(b) ?? 0));
    downMemo.set(stepId, out);
    return out;
  };

  const plan: NextStep[] = [];

  // Phases with global evidence (outline, shared resources).
  const started = cells.some((c) => c.status !== 'not_started');
  for (const [phaseId, missing] of input.missingArtifacts) {
    if (missing.length === 0) continue;
    const phase = pipeline.phases.find((p) => p.id === phaseId);
    plan.push({
      priority: started ? 1 : 3,
      unit: null,
      step: null,
      action: started ? 'rebuild_memory' : 'complete_phase',
      ...said({ k: 'phase_missing', phase: phaseId, name: phase?.name ?? '', missing, started }),
      blocks: 0,
    });
  }

  // Priority 1: failures and escalations, most-blocking first.
  const p1: NextStep[] = [];
  for (const c of cells) {
    if (c.status !== 'failed' && c.status !== 'needs_human') continue;
    const held = downstream(c.step).filter((s) => at(c.unit, s)?.status !== 'done');
    const waits = (stepById.get(c.step)?.dependsOn ?? []).filter((d) => at(c.unit, d)?.status !== 'done');
    // A retry is launchable work: never planned before its dependencies are done (then the
    // failure is still listed, for a human, with what it waits on).
    const action: PlanAction = c.status === 'failed' && waits.length === 0 ? 'retry' : 'human_review';
    p1.push({
      priority: 1,
      unit: c.unit,
      step: c.step,
      action,
      ...said({ k: 'blocked', unit: c.unit, step: c.step, failed: c.status === 'failed', held, waits, ...(c.error ? { cause: c.error } : {}) }),
      blocks: held.length,
    });
  }
  p1.sort((a, b) => b.blocks - a.blocks || rank(at(a.unit!, a.step!)!) - rank(at(b.unit!, b.step!)!));
  plan.push(...p1);

  // Priority 1 too (opt-in): long-memory entries lost after their work was done.
  const rebuilt = new Set<string>();
  if (input.rebuildMemory) {
    for (const c of cells) {
      const step = stepById.get(c.step);
      if (!step || step.kind !== 'entry') continue;
      const deps = (dependents.get(step.id) ?? []).map((id) => at(c.unit, id)).filter((x): x is Cell => !!x);
      const why = entryExpected(c, deps);
      if (!why) continue;
      const src = rebuildSourceOf(c.unit, pipeline, step, byKey);
      const held = downstream(c.step).filter((s) => at(c.unit, s)?.status !== 'done');
      plan.push({ priority: 1, unit: c.unit, step: c.step, action: 'rebuild_memory', ...said({ k: 'rebuild_entry', unit: c.unit, file: step.path, src, because: why }), blocks: held.length });
      rebuilt.add(cellKey(c.unit, c.step));
    }
  }

  // Priority 2: half-products (cells whose status is partial; a failed cell's leftovers are handled by its retry).
  const p2 = input.partials
    .map((p) => ({ p, c: at(p.unit, p.step)! }))
    .filter(({ c }) => c && c.status === 'partial')
    .sort((a, b) => rank(a.c) - rank(b.c));
  for (const { p, c } of p2) {
    const waits = (stepById.get(c.step)?.dependsOn ?? []).filter((d) => at(c.unit, d)?.status !== 'done');
    plan.push({ priority: 2, unit: p.unit, step: p.step, ...halfProductEntry(p, waits), blocks: downstream(p.step).length });
  }

  // Priority 3: ready, not-started work, gated by phases and batches.
  // A not-started cell whose dependencies wait on a human (escalated, or a half-product
  // awaiting keep-or-redo) waits on that human too: it does not hold its batch back.
  const humanMemo = new Map<Cell, boolean>();
  const waitsOnHuman = (c: Cell): boolean => {
    const hit = humanMemo.get(c);
    if (hit !== undefined) return hit;
    humanMemo.set(c, false); // cycle guard (config validation forbids cycles anyway)
    const r =
      c.status === 'not_started' &&
      (stepById.get(c.step)?.dependsOn ?? []).some((d) => {
        const dep = at(c.unit, d);
        return !!dep && dep.status !== 'done' && (settled(dep) || waitsOnHuman(dep));
      });
    humanMemo.set(c, r);
    return r;
  };
  // One pass over the cells: which phases are unfinished, which units are unsettled.
  const phaseOfBatches = Math.min(...pipeline.steps.map((s) => s.phase));
  const unfinishedPhases = new Set<number>();
  const unsettledUnits = new Set<string>();
  for (const c of cells) {
    const phase = stepById.get(c.step)?.phase ?? 0;
    if (c.status !== 'done') unfinishedPhases.add(phase);
    if (phase === phaseOfBatches && !settled(c) && !waitsOnHuman(c)) unsettledUnits.add(c.unit);
  }
  const phaseBlocked = new Set<number>();
  for (const phase of pipeline.phases) {
    for (const e of pipeline.phases) {
      if (e.id >= phase.id || !e.barrier) continue;
      if ((input.missingArtifacts.get(e.id) ?? []).length > 0 || unfinishedPhases.has(e.id)) phaseBlocked.add(phase.id);
    }
  }
  // A batch is open for new work once every earlier batch is settled (done or escalated).
  const unitsSettled = (unitsOf: readonly string[]): boolean => unitsOf.every((u) => !unsettledUnits.has(u));
  let openUpTo = input.batches.length; // index of the first batch that is not yet open
  for (let i = 0; i < input.batches.length; i++) {
    if (!unitsSettled(input.batches[i].units)) {
      openUpTo = i;
      break;
    }
  }
  const batchOpen = (c: Cell): boolean => {
    if (stepById.get(c.step)?.phase !== phaseOfBatches) return true; // batches order the per-chapter writing only
    const idx = c.batch === null ? input.batches.length : (batchOrder.get(c.batch) ?? input.batches.length);
    return idx <= openUpTo;
  };
  const p3 = cells
    .filter((c) => c.status === 'not_started' && !rebuilt.has(cellKey(c.unit, c.step)))
    .filter((c) => (stepById.get(c.step)?.dependsOn ?? []).every((d) => at(c.unit, d)?.status === 'done'))
    .filter((c) => !phaseBlocked.has(stepById.get(c.step)?.phase ?? 0))
    .filter(batchOpen)
    .sort((a, b) => rank(a) - rank(b));
  for (const c of p3) {
    const deps = stepById.get(c.step)?.dependsOn ?? [];
    plan.push({
      priority: 3,
      unit: c.unit,
      step: c.step,
      action: 'run',
      ...said({ k: 'ready', deps: [...deps] }),
      blocks: downstream(c.step).length,
    });
  }
  return plan;
}
