import { cellKey } from '../types.js';
import type { HealthItem } from './agents.js';
import type { MatrixRow, PartialItem, PlanItem, SourceItem } from './select.js';
import type { ViewId } from './views.js';

// Selection follows identity (issue 8 item 2). Lists reorder live — a launched row jumps to
// the top, a partial disappears — so a cursor that keeps its index lands on another item.
// Each list item has a key; the store remembers the key the cursor was put on (`picked`),
// the cursor follows that key through every reorder, and a key acts on the picked item or
// on nothing (saying so) when that item has left the list.

export const partialKey = (i: PartialItem): string => i.file.path;

export const planKey = (i: PlanItem): string =>
  i.kind === 'flight' ? `cell:${i.flight.key}` : i.kind === 'queued' ? `cell:${cellKey(i.redo.unit, i.redo.step)}` : i.step.unit !== null && i.step.step !== null ? `cell:${cellKey(i.step.unit, i.step.step)}` : `plan:${i.step.action}:${i.step.reason}`;

export const healthKey = (i: HealthItem): string => (i.kind === 'agent' ? `agent:${i.agent}` : `cell:${i.cell.key}`);

export const rowKey = (r: MatrixRow): string => r.unit;

export const sourceKey = (i: SourceItem): string => {
  switch (i.kind) {
    case 'discrepancy':
      return `d:${cellKey(i.d.unit, i.d.step)}`;
    case 'todo':
      return `t:${i.t.todoId}`;
    case 'ready':
      return `y:${i.r.todoId}`;
    case 'dangling':
      return `g:${i.dep.todo_id}>${i.dep.depends_on}`;
    case 'resume':
      return `r:${i.text}`;
    case 'warning':
      return `w:${i.w.source}:${i.w.line ?? ''}:${i.w.message}`;
  }
};

/** The picked item, `gone` when it left the list (the cursor now shows another one), or null for an empty list. */
export type Picked<T> = { item: T } | { gone: string } | null;

export function resolvePick<T>(items: readonly T[], keyOf: (t: T) => string, cursor: number, picked: string | null): Picked<T> {
  const at = items[cursor];
  if (picked !== null && (at === undefined || keyOf(at) !== picked)) {
    const again = items.findIndex((t) => keyOf(t) === picked);
    // The cursor follows its key on every list change; an index out of step still finds it.
    return again >= 0 ? { item: items[again] } : { gone: picked };
  }
  return at === undefined ? null : { item: at };
}

/** How a key reads to the operator: "ch03 r2", "agent writer", or the file's path. */
const keyWords = (key: string): string =>
  key.startsWith('cell:') ? key.slice(5).replace('/', ' ') : key.startsWith('agent:') ? `agent ${key.slice(6)}` : key.replace(/^(plan|[dtgrw]):/, '');

/** What the operator is told when the row under the key left the list: nothing was done. */
export const goneWhy = (key: string): string => `${keyWords(key)} left the list: nothing was done (the cursor is on the row now shown)`;

export type Picks = Record<ViewId, string | null>;

export const noPicks = (): Picks => ({ progress: null, partials: null, plan: null, sources: null, health: null });
