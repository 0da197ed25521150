import type { Cell, PipelineDef, StepDef } from '../types.js';
import { cellKey } from '../types.js';
import type { EntryWhy } from '../reasons/why.js';

// Where a lost long-memory entry is rebuilt from (docs/domain.md, What goes wrong, scenario 3): the final
// chapter is best, a marked draft will do, otherwise the chapter is redone. Pure and O(1) per
// unit given the cell map, so the plan can call it on every file event.

export type RebuildFrom = 'final' | 'draft' | 'redo';

export interface RebuildSource {
  from: RebuildFrom;
  /** Workspace-relative path of the source, null for a redo. */
  source: string | null;
}

/** The final-chapter step: a file step of a later phase that depends on the entry step (book: `final`). */
export function finalStepOf(pipeline: PipelineDef, entry: StepDef): StepDef | undefined {
  return pipeline.steps.find((s) => s.kind === 'file' && s.phase > entry.phase && s.dependsOn.includes(entry.id));
}

/** The draft step: `draft` by id, else the first step with a `DRAFT_COMPLETE` marker. */
export function draftStepOf(pipeline: PipelineDef): StepDef | undefined {
  return pipeline.steps.find((s) => s.id === 'draft') ?? pipeline.steps.find((s) => s.marker === 'DRAFT_COMPLETE');
}

export function rebuildSourceOf(unit: string, pipeline: PipelineDef, entry: StepDef, byKey: ReadonlyMap<string, Cell>): RebuildSource {
  const fin = finalStepOf(pipeline, entry);
  const finCell = fin ? byKey.get(cellKey(unit, fin.id)) : undefined;
  if (finCell?.status === 'done') return { from: 'final', source: finCell.path };
  const draft = draftStepOf(pipeline);
  const draftCell = draft ? byKey.get(cellKey(unit, draft.id)) : undefined;
  if (draftCell?.status === 'done') return { from: 'draft', source: draftCell.path };
  return { from: 'redo', source: null };
}

/**
 * An entry cell whose work is evidently finished although its entry is missing: the
 * checkpoint claims it done, or a step that depends on it has a file on disk (the final
 * chapter was written). Such a cell needs a rebuild, not a first run.
 */
export function entryExpected(cell: Cell, dependents: readonly Cell[]): EntryWhy | null {
  if (cell.status === 'done' || cell.status === 'running') return null;
  if (cell.checkpoint === 'done') return { k: 'claimed' };
  const later = dependents.find((d) => d.exists);
  if (later) return { k: 'later_exists', path: later.path };
  return null;
}
