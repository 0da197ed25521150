import type { Cell, PipelineDef, StepDef } from '../types.js';
import { cellKey } from '../types.js';
import { draftStepOf } from '../memory/sources.js';

// What a redo from a cell invalidates (docs/redo.md, What is redone): the cell and everything
// built on it. Within its unit, the steps that depend on it, transitively; across units, a
// later unit reads the shared long memory before it writes
// (docs/domain.md, The reference pipeline), so once a redone unit's long-memory entry exists,
// every later unit whose draft was written read it, and is redone with what depends on its
// draft. Pure.

/** Why a cell is in the set. */
export type RedoWhy = 'origin' | 'depends' | 'reads_memory';

export interface RedoCell {
  unit: string;
  step: string;
  /** Workspace-relative output: the unit's file, or the shared long-memory file of an entry step. */
  path: string;
  /** An entry in a shared long-memory file: backed up as a copy, the file stays (other units' entries are in it). */
  shared: boolean;
  why: RedoWhy;
}

const unitPath = (s: StepDef, unit: string): string => (s.kind === 'entry' ? s.path : s.path.replaceAll('{unit}', unit));

/** Step id → the steps that depend on it directly. */
const dependentsOf = (steps: readonly StepDef[]): Map<string, StepDef[]> => {
  const m = new Map<string, StepDef[]>();
  for (const s of steps) for (const d of s.dependsOn) m.set(d, [...(m.get(d) ?? []), s]);
  return m;
};

/** The step and every step that depends on it, transitively, within one unit. */
export function stepsFrom(pipeline: PipelineDef, stepId: string): string[] {
  const deps = dependentsOf(pipeline.steps);
  const seen = new Set<string>([stepId]);
  const todo = [stepId];
  while (todo.length > 0) {
    for (const s of deps.get(todo.pop()!) ?? []) {
      if (seen.has(s.id)) continue;
      seen.add(s.id);
      todo.push(s.id);
    }
  }
  return [...seen];
}

/**
 * The cells a redo of `origin` invalidates, in plan order: by phase (a barrier phase runs
 * before the next), then by unit, then by the step's place in the pipeline, which lists
 * dependencies first.
 */
export function redoClosure(pipeline: PipelineDef, units: readonly string[], cells: readonly Cell[], origin: { unit: string; step: string }): RedoCell[] {
  const byId = new Map(pipeline.steps.map((s, i) => [s.id, { s, i }]));
  const byKey = new Map(cells.map((c) => [cellKey(c.unit, c.step), c]));
  const order = new Map(units.map((u, i) => [u, i]));
  const reader = draftStepOf(pipeline);
  const out = new Map<string, RedoCell>();
  const add = (unit: string, from: string, why: RedoWhy): void => {
    const fresh: string[] = [];
    for (const id of stepsFrom(pipeline, from)) {
      const key = cellKey(unit, id);
      if (out.has(key)) continue;
      const s = byId.get(id)!.s;
      out.set(key, { unit, step: id, path: unitPath(s, unit), shared: s.kind === 'entry', why: id === from ? why : 'depends' });
      fresh.push(id);
    }
    // A long-memory entry that exists was read by the later units that wrote their draft since.
    const entryWritten = fresh.some((id) => byId.get(id)!.s.kind === 'entry' && byKey.get(cellKey(unit, id))?.status === 'done');
    if (!entryWritten || !reader) return;
    const at = order.get(unit) ?? Infinity;
    for (const later of units) if ((order.get(later) ?? -1) > at && byKey.get(cellKey(later, reader.id))?.exists) add(later, reader.id, 'reads_memory');
  };
  add(origin.unit, origin.step, 'origin');
  const rank = (c: RedoCell): [number, number, number] => {
    const { s, i } = byId.get(c.step)!;
    return [s.phase, order.get(c.unit) ?? Infinity, i];
  };
  return [...out.values()].sort((a, b) => {
    const [x, y] = [rank(a), rank(b)];
    return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
  });
}
