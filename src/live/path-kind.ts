import { posix } from 'node:path';
import type { PipelineDef, StepDef } from '../types.js';
import { fileNameMatcher, unitOfName, unitPath } from '../scan/units.js';
import type { SafePattern } from '../pipeline/safe-pattern.js';

// What a changed path means to the live view, decided from its name alone:
// temp files of atomic writers (`.ch01-draft.md.123.ab12.tmp`), editor swap and backup files
// (`.ch01-draft.md.swp`, `ch01-draft.md~`, vim's `4913`), notes next to the artifacts — none
// of them is anything the state is made of, so their events are dropped before they cost a
// read, a re-derivation or a screen update.

export interface PathKind {
  config?: boolean;
  checkpoint?: boolean;
  todos?: boolean;
  /** Global evidence of a phase (outline, shared resources). */
  global?: boolean;
  /** The shared long-memory file of an entry step: every unit's entry cell reads it. */
  entry?: boolean;
  /** A per-unit artifact: the steps and unit ids its name stands for (steps whose file name holds `{unit}`; the only ones watched). */
  hits: { step: StepDef; unit: string }[];
  /** Shaped like a step's output but the unit pattern rejects it: matters while no unit is found (the pattern-miss warning). */
  rejected?: boolean;
}

export interface PathLayout {
  pipeline: PipelineDef;
  checkpoint: string;
  /** Workspace-relative path of the todo database, when there is one. */
  todoDb: string | null;
}

const CONFIG_FILES = new Set(['checkroom.yaml', 'checkroom.yml']);

/** A classifier for one layout; null for a path the state does not depend on. */
export function pathClassifier(layout: PathLayout): (rel: string) => PathKind | null {
  const { pipeline } = layout;
  const byDir = new Map<string, { step: StepDef; re: SafePattern; loose: SafePattern }[]>();
  for (const step of pipeline.steps) {
    if (step.kind !== 'file') continue;
    const m = fileNameMatcher(step, pipeline.units.pattern);
    const loose = fileNameMatcher(step, '.+?');
    if (!m || !loose) continue;
    byDir.set(m.dir, [...(byDir.get(m.dir) ?? []), { step, re: m.re, loose: loose.re }]);
  }
  const globals = new Set(pipeline.phases.flatMap((p) => p.artifacts));
  const entries = new Set(pipeline.steps.filter((s) => s.kind === 'entry').map((s) => s.path));
  const checkpoint = posix.normalize(layout.checkpoint);
  const todo = layout.todoDb ? posix.normalize(layout.todoDb) : null;

  return (rel) => {
    const k: PathKind = { hits: [] };
    if (CONFIG_FILES.has(rel)) k.config = true;
    if (rel === checkpoint) k.checkpoint = true;
    if (todo && (rel === todo || rel === `${todo}-wal`)) k.todos = true;
    if (globals.has(rel)) k.global = true;
    if (entries.has(rel)) k.entry = true;
    const name = posix.basename(rel);
    for (const m of byDir.get(posix.dirname(rel)) ?? []) {
      const unit = unitOfName(m.re, name);
      if (unit !== null) {
        // The same unit id the name would give in a full scan, checked against the template
        // (a greedy pattern can match a name that is not this unit's file).
        if (unitPath(m.step, unit) === rel) k.hits.push({ step: m.step, unit });
      } else if (m.loose.test(name)) k.rejected = true;
    }
    return k.config || k.checkpoint || k.todos || k.global || k.entry || k.rejected || k.hits.length ? k : null;
  };
}
