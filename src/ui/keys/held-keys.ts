import { presetOf } from '../../pipeline/presets/index.js';
import type { CommandId } from './keymap.js';
import { liveWriters, writerOf } from '../agents/live-writers.js';
import { selectedPartial } from '../store/selected.js';
import type { AppState } from '../store/types.js';

// A live file offers nothing destructive: while the selected half-product
// is being written (by a run of ours, or held by a process checkroom did not launch, or just
// changed), the footer leaves out the keys that would move, mark or rewrite it. The keys
// still answer, with the reason, if pressed.

const ON_THE_FILE: ReadonlySet<CommandId> = new Set<CommandId>(['partial.backup', 'partial.keep', 'partial.redo', 'run.continue']);
const NONE: ReadonlySet<CommandId> = new Set();

// Nor does the footer offer what the workspace's layout does not have: a
// gate-file workflow has no checkpoint.md to write, no todo table, and no marker to append
// to a half-done step. Those keys too still answer, with the reason.
const NO_CHECKPOINT: ReadonlySet<CommandId> = new Set<CommandId>(['checkpoint.write']);
const NO_TODOS: ReadonlySet<CommandId> = new Set<CommandId>(['todos.writeback']);
const NEITHER: ReadonlySet<CommandId> = new Set<CommandId>(['checkpoint.write', 'todos.writeback']);
const NO_MARKER: ReadonlySet<CommandId> = new Set<CommandId>(['partial.keep']);

function sourcesNotOffered(s: AppState): ReadonlySet<CommandId> {
  const has = presetOf(s.ws.preset).has;
  return !has.checkpoint && !has.todos ? NEITHER : !has.checkpoint ? NO_CHECKPOINT : !has.todos ? NO_TODOS : NONE;
}

/** The footer keys not offered now: a constant set, so a selector returning it re-renders only when the answer changes. */
export function notOffered(s: AppState): ReadonlySet<CommandId> {
  if (s.view === 'sources') return sourcesNotOffered(s);
  if (s.view !== 'partials') return NONE;
  // With marks these keys act on the marked set, each file refused on its own (marks/partials.ts).
  if (s.marks.partials.length) return NONE;
  const p = selectedPartial(s);
  if (!p || !('item' in p)) return NONE;
  const live = s.held.byPath.has(p.item.file.path) || writerOf(liveWriters(s), p.item.file) !== null;
  if (live) return ON_THE_FILE;
  const step = s.ws.pipeline.steps.find((x) => x.id === p.item.file.step);
  return step && !step.marker ? NO_MARKER : NONE;
}
