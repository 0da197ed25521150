import { cellKey } from '../../types.js';
import { goneUpdate, selectedRow } from './selected.js';
import type { KitDeps } from './kit.js';
import type { AppState, Detail } from './types.js';
import { readWorkspaceTail } from '../views/tail.js';

// `enter` on the Progress view: the cell under the cursor and the tail of its file. The pure
// part picks the cell (or says why there is none); the read is the one effect, and its
// answer lands only if the detail still shows that cell.

/** The detail to open and the file to read, or the change that says why there is none. */
export function planDetail(s: AppState): { change: Partial<AppState> } | { detail: Detail; path: string | null } {
  const picked = selectedRow(s);
  if (picked && 'gone' in picked) return { change: goneUpdate(s, 'progress', picked.gone) };
  const cell = picked?.item.cells[s.cell.col];
  if (!cell) return { change: { message: { text: 'no cell here (the filter hides every row?)', tone: 'warn' } } };
  const detail = { unit: cell.unit, step: cell.step, tail: null, note: cell.exists ? null : 'no file on disk', loading: cell.exists };
  return { detail, path: cell.exists ? cell.path : null };
}

export const detailOpener =
  ({ get, set, track }: KitDeps) =>
  (): void => {
    const s = get();
    const plan = planDetail(s);
    if ('change' in plan) return set(plan.change);
    set({ detail: plan.detail });
    if (plan.path === null) return;
    const want = cellKey(plan.detail.unit, plan.detail.step);
    track(
      readWorkspaceTail(s.ws.root, plan.path, s.ws.pipeline.outsideRoots).then(({ tail, note }) =>
        set((st) => (st.detail && cellKey(st.detail.unit, st.detail.step) === want ? { detail: { ...st.detail, tail, note, loading: false } } : {})),
      ),
    );
  };
