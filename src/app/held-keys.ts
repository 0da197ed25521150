import type { CommandId } from './keymap.js';
import { liveWriters, writerOf } from './live-writers.js';
import { selectedPartial } from './selected.js';
import type { AppState } from './store-types.js';

// A live file offers nothing destructive (issue 17 item 1): while the selected half-product
// is being written (by a run of ours, or held by a process checkroom did not launch, or just
// changed), the footer leaves out the keys that would move, mark or rewrite it. The keys
// still answer, with the reason, if pressed.

const ON_THE_FILE: ReadonlySet<CommandId> = new Set<CommandId>(['partial.backup', 'partial.keep', 'partial.redo', 'run.continue']);
const NONE: ReadonlySet<CommandId> = new Set();

/** The footer keys not offered now: a constant set, so a selector returning it re-renders only when the answer changes. */
export function notOffered(s: AppState): ReadonlySet<CommandId> {
  if (s.view !== 'partials') return NONE;
  const p = selectedPartial(s);
  if (!p || !('item' in p)) return NONE;
  const live = s.held.byPath.has(p.item.file.path) || writerOf(liveWriters(s), p.item.file) !== null;
  return live ? ON_THE_FILE : NONE;
}
