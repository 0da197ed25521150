import type { PipelineDef } from '../../types.js';
import { cellKey } from '../../types.js';
import { unitPath } from '../../scan/units.js';

// Never two live writers on one output path. A cell's output path comes from
// its step's template; the long-memory steps of every chapter share one file
// (meta/chapter-summaries.md), so "one run per cell" is not enough: launches are excluded by
// the path they write. Pure, so autopilot's pick and the manual launch decide alike.

export interface CellRef {
  unit: string;
  step: string;
}

/** The workspace-relative output path of a cell, or null for a step the pipeline does not have. */
export const outputOf = (pipeline: PipelineDef, unit: string, step: string): string | null => {
  const def = pipeline.steps.find((s) => s.id === step);
  return def ? unitPath(def, unit) : null;
};

/** Output path → the cell writing it, for every cell with a live writer. */
export function writersByPath(pipeline: PipelineDef, writers: Iterable<CellRef>): Map<string, CellRef> {
  const byPath = new Map<string, CellRef>();
  for (const w of writers) {
    const path = outputOf(pipeline, w.unit, w.step);
    if (path !== null && !byPath.has(path)) byPath.set(path, { unit: w.unit, step: w.step });
  }
  return byPath;
}

/** The live writer (another cell, or this one) already on the output path of `unit`/`step`, or null. */
export function pathTakenBy(pipeline: PipelineDef, byPath: ReadonlyMap<string, CellRef>, unit: string, step: string): CellRef | null {
  const path = outputOf(pipeline, unit, step);
  return path === null ? null : (byPath.get(path) ?? null);
}

/** "ch04 memory: meta/chapter-summaries.md is being written by ch03 memory" (raw text; callers sanitize). */
export const takenWhy = (pipeline: PipelineDef, w: CellRef, unit: string, step: string): string => {
  const path = outputOf(pipeline, unit, step) ?? '?';
  return cellKey(w.unit, w.step) === cellKey(unit, step) ? `${path} is being written by its own run` : `${path} is being written by ${w.unit} ${w.step}; one writer per file`;
};
