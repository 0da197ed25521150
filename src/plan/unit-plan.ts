import type { Cell, NextStep, PartialFile, PipelineDef, StepDef } from '../types.js';
import { entryExpected, rebuildSourceOf } from '../memory/sources.js';
import type { Why } from '../reasons/why.js';
import { say } from '../reasons/say.js';
import { halfProductEntry } from './half-product.js';

// The part of the next-step plan that depends on one unit's cells only: a
// file event changes one unit, so the live view recomputes that unit's fragment and splices it
// into the plan; the full plan (plan.ts) is the same fragments put together for every unit.

/** A plan entry's reason, in English and as data. */
export const said = (why: Why): { reason: string; why: Why } => ({ reason: say(why), why });

/** What the plan needs to know about a pipeline, computed once per pipeline. */
export interface PlanShape {
  pipeline: PipelineDef;
  stepIndex: ReadonlyMap<string, number>;
  stepById: ReadonlyMap<string, StepDef>;
  dependents: ReadonlyMap<string, string[]>;
  /** Transitive dependents inside a unit (what a failure holds up), in step order. */
  downstream(stepId: string): string[];
  /** Batches order the steps of the earliest phase only (the per-chapter writing). */
  phaseOfBatches: number;
}

const shapes = new WeakMap<PipelineDef, PlanShape>();

export function planShape(pipeline: PipelineDef): PlanShape {
  const hit = shapes.get(pipeline);
  if (hit) return hit;
  const stepIndex = new Map(pipeline.steps.map((s, i) => [s.id, i]));
  const dependents = new Map<string, string[]>();
  for (const s of pipeline.steps) for (const d of s.dependsOn) dependents.set(d, [...(dependents.get(d) ?? []), s.id]);
  const downMemo = new Map<string, string[]>();
  const downstream = (stepId: string): string[] => {
    const memo = downMemo.get(stepId);
    if (memo) return memo;
    const out: string[] = [];
    const walk = (id: string): void => {
      for (const next of dependents.get(id) ?? []) {
        if (out.includes(next)) continue;
        out.push(next);
        walk(next);
      }
    };
    walk(stepId);
    out.sort((a, b) => (stepIndex.get(a) ?? 0) - (stepIndex.get(b) ?? 0));
    downMemo.set(stepId, out);
    return out;
  };
  const shape: PlanShape = {
    pipeline,
    stepIndex,
    stepById: new Map(pipeline.steps.map((s) => [s.id, s])),
    dependents,
    downstream,
    phaseOfBatches: Math.min(...pipeline.steps.map((s) => s.phase)),
  };
  shapes.set(pipeline, shape);
  return shape;
}

export interface UnitPlan {
  /** Priority 1: failures and escalations (sorted globally by what they block). */
  p1: NextStep[];
  /** Priority 1 (opt-in): long-memory entries lost after their work was done, in step order. */
  rebuild: NextStep[];
  /** Priority 2: half-products, in step order. */
  p2: NextStep[];
  /** Priority 3 candidates: ready, not-started work before the phase and batch gates. */
  p3: { entry: NextStep; phase: number }[];
  /** A cell of the batched phase neither done nor waiting on a human: holds later batches back. */
  unsettled: boolean;
}

// A cell no longer holds its batch back once it is done or waits on a human: escalated,
// blocked by an escalation, or a half-product that looks complete and needs the operator's
// keep-or-redo decision (docs/domain.md, What goes wrong, scenario 5: skip what waits on a human, continue).
const settled = (c: Cell): boolean =>
  c.status === 'done' || c.status === 'needs_human' || c.blockedBy.length > 0 || (c.status === 'partial' && c.triage?.verdict === 'maybe_complete');

/** One unit's plan fragment from its cells (indexed by pipeline step order) and its half-products. */
export function unitPlan(shape: PlanShape, unit: string, cells: readonly (Cell | undefined)[], partials: readonly PartialFile[], rebuildMemory: boolean): UnitPlan {
  const { pipeline, stepIndex, stepById, dependents, downstream } = shape;
  const at = (step: string): Cell | undefined => {
    const i = stepIndex.get(step);
    return i === undefined ? undefined : cells[i];
  };
  const out: UnitPlan = { p1: [], rebuild: [], p2: [], p3: [], unsettled: false };
  const waitsOf = (step: string): string[] => (stepById.get(step)?.dependsOn ?? []).filter((d) => at(d)?.status !== 'done');
  const heldBy = (step: string): string[] => downstream(step).filter((s) => at(s)?.status !== 'done');

  for (const c of cells) {
    if (!c) continue;
    if (c.status !== 'failed' && c.status !== 'needs_human') continue;
    const held = heldBy(c.step);
    const waits = waitsOf(c.step);
    // A retry is launchable work: never planned before its dependencies are done (then the
    // failure is still listed, for a human, with what it waits on).
    const action = c.status === 'failed' && waits.length === 0 ? 'retry' : 'human_review';
    out.p1.push({ priority: 1, unit, step: c.step, action, ...said({ k: 'blocked', unit, step: c.step, failed: c.status === 'failed', held, waits, ...(c.error ? { cause: c.error } : {}) }), blocks: held.length });
  }

  const rebuilt = new Set<string>();
  // One row per cell ("ch01 memory" was listed as human_review and as
  // rebuild_memory): a failed or escalated entry keeps its priority-1 row for the human.
  const listed = new Set(out.p1.map((n) => n.step));
  if (rebuildMemory) {
    const byKey = { get: (key: string) => (key.startsWith(`${unit}/`) ? at(key.slice(unit.length + 1)) : undefined) } as ReadonlyMap<string, Cell>;
    for (const c of cells) {
      const step = c && stepById.get(c.step);
      if (!step || step.kind !== 'entry' || listed.has(step.id)) continue;
      const deps = (dependents.get(step.id) ?? []).map(at).filter((x): x is Cell => !!x);
      const because = entryExpected(c, deps);
      if (!because) continue;
      const src = rebuildSourceOf(unit, pipeline, step, byKey);
      out.rebuild.push({ priority: 1, unit, step: c.step, action: 'rebuild_memory', ...said({ k: 'rebuild_entry', unit, file: step.path, src, because }), blocks: heldBy(c.step).length });
      rebuilt.add(c.step);
    }
  }

  // Half-products whose cell is partial; a failed cell's leftovers are handled by its retry.
  for (const p of partials) {
    const c = at(p.step);
    if (!c || c.status !== 'partial') continue;
    out.p2.push({ priority: 2, unit, step: p.step, ...halfProductEntry(p, waitsOf(c.step)), blocks: downstream(p.step).length });
  }

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
        const dep = at(d);
        return !!dep && dep.status !== 'done' && (settled(dep) || waitsOnHuman(dep));
      });
    humanMemo.set(c, r);
    return r;
  };
  for (const c of cells) {
    if (!c) continue;
    const phase = stepById.get(c.step)?.phase ?? 0;
    if (!out.unsettled && phase === shape.phaseOfBatches && !settled(c) && !waitsOnHuman(c)) out.unsettled = true;
    if (c.status !== 'not_started' || rebuilt.has(c.step)) continue;
    const deps = stepById.get(c.step)?.dependsOn ?? [];
    if (!deps.every((d) => at(d)?.status === 'done')) continue;
    out.p3.push({ entry: { priority: 3, unit, step: c.step, action: 'run', ...said({ k: 'ready', deps: [...deps] }), blocks: downstream(c.step).length }, phase });
  }
  return out;
}

/** The plan key of a unit's steps: batch first, then unit order, then step order (the `rank` of plan.ts). */
export const rankOf = (batchIdx: number, unitIdx: number, stepIdx: number): number => batchIdx * 1e9 + unitIdx * 1e3 + stepIdx;

