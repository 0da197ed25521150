import type { BatchDef, PipelineDef, StepDef } from '../types.js';
import { MARKER_RE } from './schema.js';
import { unitIdPattern } from './safe-pattern.js';

// Structural checks of a resolved pipeline: the step graph must be a DAG over known ids,
// every step must sit in an existing phase and be able to prove completion (docs/domain.md, The reference pipeline: a per-unit file with a whole-line marker). Problems are plain data so the
// loader can point at the YAML node that caused them; validatePipeline throws the first.

export type StepField = 'id' | 'depends_on' | 'phase' | 'path' | 'marker';

export interface PipelineProblem {
  problem: string;
  expected: string;
  /** Step the problem belongs to, when it belongs to one. */
  stepId?: string;
  /** Position of the step in pipeline.steps (duplicates share an id). */
  stepIndex?: number;
  field?: StepField;
  /** Index inside a list field (depends_on). */
  index?: number;
  /** For a dependency cycle: the ids along it, first repeated last. */
  cycle?: string[];
}

const stepProblems = (p: PipelineDef): PipelineProblem[] => {
  const out: PipelineProblem[] = [];
  const phases = new Set(p.phases.map((ph) => ph.id));
  const seen = new Set<string>();
  p.steps.forEach((s, stepIndex) => {
    const at = { stepId: s.id, stepIndex };
    if (seen.has(s.id)) out.push({ ...at, field: 'id', problem: `duplicate step id "${s.id}"`, expected: 'unique step ids' });
    seen.add(s.id);
    if (!phases.has(s.phase)) {
      out.push({ ...at, field: 'phase', problem: `step "${s.id}" is in phase ${s.phase}, which does not exist`, expected: `one of: ${[...phases].join(', ')}` });
    }
    if (s.kind === 'file' && !s.path.includes('{unit}')) {
      out.push({ ...at, field: 'path', problem: `path "${s.path}" of file step "${s.id}" lacks {unit}`, expected: 'a per-unit path template containing {unit}' });
    }
    if (s.kind === 'file' && s.marker === null) {
      out.push({ ...at, field: 'marker', problem: `file step "${s.id}" has no marker`, expected: 'a marker like DRAFT_COMPLETE' });
    }
    if (s.marker !== null && !MARKER_RE.test(s.marker)) {
      out.push({ ...at, field: 'marker', problem: `invalid marker "${s.marker}" in step "${s.id}"`, expected: 'a marker matching ^[A-Z][A-Z0-9_]*$' });
    }
  });
  p.steps.forEach((s, stepIndex) =>
    s.dependsOn.forEach((dep, index) => {
      if (!seen.has(dep)) {
        out.push({ stepId: s.id, stepIndex, field: 'depends_on', index, problem: `step "${s.id}" depends on unknown step "${dep}"`, expected: `one of: ${[...seen].join(', ')}` });
      }
    }),
  );
  return out;
};

/** The first dependency cycle as a path of ids, first id repeated at the end; null if none. */
export const findCycle = (steps: StepDef[]): string[] | null => {
  const byId = new Map(steps.map((s) => [s.id, s]));
  const state = new Map<string, 'open' | 'closed'>();
  const stack: string[] = [];
  const visit = (id: string): string[] | null => {
    if (state.get(id) === 'closed') return null;
    if (state.get(id) === 'open') return [...stack.slice(stack.indexOf(id)), id];
    state.set(id, 'open');
    stack.push(id);
    for (const dep of byId.get(id)?.dependsOn ?? []) {
      if (!byId.has(dep)) continue; // reported as an unknown dependency
      const cycle = visit(dep);
      if (cycle) return cycle;
    }
    stack.pop();
    state.set(id, 'closed');
    return null;
  };
  for (const s of steps) {
    const cycle = visit(s.id);
    if (cycle) return cycle;
  }
  return null;
};

export const findPipelineProblems = (p: PipelineDef): PipelineProblem[] => {
  const out: PipelineProblem[] = [];
  if (p.phases.length === 0) out.push({ problem: 'the pipeline has no phases', expected: 'at least one phase' });
  const phaseIds = new Set<number>();
  for (const ph of p.phases) {
    if (phaseIds.has(ph.id)) out.push({ problem: `duplicate phase id ${ph.id}`, expected: 'unique phase ids' });
    phaseIds.add(ph.id);
  }
  out.push(...stepProblems(p));
  const cycle = findCycle(p.steps);
  if (cycle) {
    const stepIndex = p.steps.findIndex((s) => s.id === cycle[0]);
    const index = p.steps[stepIndex].dependsOn.indexOf(cycle[1]);
    out.push({ stepId: cycle[0], stepIndex, field: 'depends_on', index, cycle, problem: `dependency cycle ${cycle.join(' → ')}`, expected: 'dependencies without cycles' });
  }
  return out;
};

export interface UnitProblem {
  /** Where in checkroom.yaml (units.list / batches) the offending value sits. */
  path: (string | number)[];
  problem: string;
  expected: string;
}

/** Listed and batched units must be units of this pipeline: a typo would make a batch that never finishes. */
export const findUnitProblems = (units: PipelineDef['units'], batches: BatchDef[]): UnitProblem[] => {
  const out: UnitProblem[] = [];
  // A pattern RE2 refuses is reported by the schema, at its own node: nothing matches it here.
  const unitRe = unitIdPattern(units.pattern) ?? { test: () => false };
  const known = units.list ? new Set(units.list) : null;
  units.list?.forEach((u, i) => {
    const path = ['units', 'list', i];
    if (!unitRe.test(u)) out.push({ path, problem: `unit "${u}" does not match units.pattern`, expected: `a unit id matching ${units.pattern}` });
    else if (units.list!.indexOf(u) !== i) out.push({ path, problem: `duplicate unit "${u}"`, expected: 'unique unit ids' });
  });
  const expected = known ? 'a unit from units.list' : `a unit id matching ${units.pattern} (or set units.pattern)`;
  const batchOf = new Map<string, number>();
  const ids = new Set<number>();
  batches.forEach((b, i) => {
    if (ids.has(b.id)) out.push({ path: ['batches', i, 'id'], problem: `duplicate batch id ${b.id}`, expected: 'unique batch ids' });
    ids.add(b.id);
    b.units.forEach((u, j) => {
      const path = ['batches', i, 'units', j];
      if (known ? !known.has(u) : !unitRe.test(u)) out.push({ path, problem: `unknown unit "${u}" in batch ${b.id}`, expected });
      else if (batchOf.has(u)) out.push({ path, problem: `unit "${u}" is in batch ${batchOf.get(u)} and batch ${b.id}`, expected: 'each unit in one batch' });
      batchOf.set(u, b.id);
    });
  });
  return out;
};
