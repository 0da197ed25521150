import type { StoreApi } from 'zustand/vanilla';
import type { AppState } from '../store/types.js';
import { listKeys } from '../views/nav.js';
import { droppedWords, pruneMarks } from './marks.js';

// Marks follow their items (marks.ts): whenever a list's inputs change, a mark whose item
// left its list is dropped and the status line says how many. Against the whole list, not
// the filtered one: a filter hides rows, it does not unmark them.

export function startMarksFollow(store: StoreApi<AppState>): () => void {
  return store.subscribe((st, prev) => {
    if (st.ws === prev.ws && st.agents === prev.agents && st.skipped === prev.skipped && st.redoQueue === prev.redoQueue && st.history === prev.history) return;
    const r = pruneMarks(st.marks, (v) => listKeys({ ...st, filter: '' }, v));
    if (r.dropped) store.setState({ marks: r.marks, message: { text: droppedWords(r.dropped), tone: 'warn' } });
  });
}
