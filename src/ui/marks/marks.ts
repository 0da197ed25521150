import type { ViewId } from '../views/views.js';

// Multi-select (docs/marks.md): the marked rows of a list, kept by the identity of
// each item (the same keys the cursor follows: picked.ts), never by row index, so a mark
// stays on its item through every live reorder (Health by urgency, Plan by priority). A mark
// whose item left the list is dropped, and the status line says how many. UI state only:
// the actions the marks trigger are journalled as each single action is.

export const MARK_VIEWS = ['partials', 'plan', 'health', 'history'] as const;

export type MarkView = (typeof MARK_VIEWS)[number];

/** Each markable view's marked item keys, in the order they were marked. */
export type Marks = Readonly<Record<MarkView, readonly string[]>>;

export const noMarks = (): Marks => ({ partials: [], plan: [], health: [], history: [] });

export const isMarkView = (v: ViewId): v is MarkView => (MARK_VIEWS as readonly string[]).includes(v);

const NONE: readonly string[] = [];

/** The marked keys of a view; none for a view without marks. */
export const marksOf = (m: Marks, v: ViewId): readonly string[] => (isMarkView(v) ? m[v] : NONE);

/** `key` marked, or unmarked when it was. */
export const toggleMark = (m: Marks, v: MarkView, key: string): Marks =>
  ({ ...m, [v]: m[v].includes(key) ? m[v].filter((k) => k !== key) : [...m[v], key] });

/** Every key of `keys` marked too (the rows the filter shows); the ones marked before stay. */
export function markAll(m: Marks, v: MarkView, keys: readonly string[]): Marks {
  const had = new Set(m[v]);
  const added = keys.filter((k) => !had.has(k));
  return added.length ? { ...m, [v]: [...m[v], ...added] } : m;
}

export const clearMarks = (m: Marks, v: MarkView): Marks => (m[v].length ? { ...m, [v]: [] } : m);

/** These keys unmarked (an action took them out of the list itself, and said so). */
export const unmark = (m: Marks, v: MarkView, keys: readonly string[]): Marks => {
  const gone = new Set(keys);
  return m[v].some((k) => gone.has(k)) ? { ...m, [v]: m[v].filter((k) => !gone.has(k)) } : m;
};

/**
 * The marks whose items are still in their lists (`listOf`: a view's whole list, unfiltered:
 * a filter hides rows, it does not take them away), and how many were dropped. The same
 * `marks` when none was.
 */
export function pruneMarks(m: Marks, listOf: (v: MarkView) => readonly string[]): { marks: Marks; dropped: number } {
  let dropped = 0;
  let next: Marks = m;
  for (const v of MARK_VIEWS) {
    if (m[v].length === 0) continue;
    const keys = new Set(listOf(v));
    const kept = m[v].filter((k) => keys.has(k));
    if (kept.length === m[v].length) continue;
    dropped += m[v].length - kept.length;
    next = { ...next, [v]: kept };
  }
  return { marks: next, dropped };
}

/** How the status line says it: "3 marks dropped: their rows left the list". */
export const droppedWords = (n: number): string => `${n} mark${n === 1 ? '' : 's'} dropped: ${n === 1 ? 'its row' : 'their rows'} left the list`;

/** The keys that act on a view's marked rows instead of the selected one (the footer says them). */
export const MARK_ACTS: Readonly<Record<MarkView, string>> = { partials: 'b d m s', plan: 'enter x', health: 'Z', history: '' };

/** The footer's "N marked" and what acts on them, or '' with no marks. */
export function markedWords(m: Marks, v: ViewId): string {
  const n = marksOf(m, v).length;
  if (!n || !isMarkView(v)) return '';
  return MARK_ACTS[v] ? `${n} marked: ${MARK_ACTS[v]} act on them, U clears` : `${n} marked, U clears`;
}
