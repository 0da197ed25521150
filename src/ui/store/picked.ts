import { perView, type ViewId } from '../views/views.js';

// Selection follows identity. Lists reorder live — a launched row jumps to
// the top, a partial disappears — so a cursor that keeps its index lands on another item.
// Each list item has a key; the store remembers the key the cursor was put on (`picked`),
// the cursor follows that key through every reorder, and a key acts on the picked item or
// on nothing (saying so) when that item has left the list.

export { healthKey, partialKey, planKey, rowKey, sourceKey } from '../keys/item-keys.js';

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

/** No item picked in any registered view. */
export const noPicks = (): Picks => perView(() => null);
