import type { AppState } from '../store/types.js';
import type { SetState } from '../store/kit.js';
import { listKeys, navigate } from '../views/nav.js';
import { clearMarks, isMarkView, markAll, marksOf, toggleMark } from './marks.js';

// The marks' keys (docs/marks.md): space marks or unmarks the row under the cursor and
// moves down, V marks every row the `/` filter shows, U clears the view's marks.

type MarkHandler = (k: { set: SetState }, s: AppState) => void;

const NOT_HERE = 'marks are for Partials, Plan, Health and History';

const count = (n: number): string => `${n} marked`;

export const markKey: MarkHandler = (k, s) => {
  if (!isMarkView(s.view)) return k.set({ message: { text: NOT_HERE, tone: 'warn' } });
  const view = s.view;
  const keys = listKeys(s, view);
  // The row under the cursor, which follows its picked item (picked.ts).
  const key = keys[s.cursors[view]];
  if (key === undefined) return k.set({ message: { text: 'nothing to mark: the list is empty', tone: 'warn' } });
  k.set((st) => {
    const marks = toggleMark(st.marks, view, key);
    // The footer says how many are marked; the status line is left to what happened last.
    return { marks, ...navigate(st, 'move.down') };
  });
};

export const markAllKey: MarkHandler = (k, s) => {
  if (!isMarkView(s.view)) return k.set({ message: { text: NOT_HERE, tone: 'warn' } });
  const view = s.view;
  const keys = listKeys(s, view);
  k.set((st) => {
    const marks = markAll(st.marks, view, keys);
    const shown = s.filter ? ` (the ${keys.length} row${keys.length === 1 ? '' : 's'} the filter shows)` : '';
    return { marks, message: { text: `${count(marksOf(marks, view).length)}${shown}`, tone: 'info' } };
  });
};

export const clearMarksKey: MarkHandler = (k, s) => {
  if (!isMarkView(s.view)) return k.set({ message: { text: NOT_HERE, tone: 'warn' } });
  const view = s.view;
  const n = marksOf(s.marks, view).length;
  k.set((st) => ({ marks: clearMarks(st.marks, view), message: { text: n ? `${n} mark${n === 1 ? '' : 's'} cleared` : 'nothing is marked', tone: 'info' } }));
};
