import type { WorkspaceState } from '../../types.js';
import { helpRows, type CommandId } from '../keys/keymap.js';
import type { UiState } from '../store/types.js';
import { nextView, VIEW_IDS, viewOf, type ViewId } from './views.js';
import { clamp } from './window.js';
import { noPicks, type Picks } from '../store/picked.js';

// Pure navigation: cursor moves, paging, view switches. State in, state change out; the
// store applies it with a functional update, so a burst of keys never reads a stale state.

export type NavState = Pick<UiState, 'view' | 'cursors' | 'cell' | 'filter' | 'skipped' | 'redoQueue' | 'pageSize' | 'help' | 'agents'> & { ws: WorkspaceState } & Partial<Pick<UiState, 'recovery' | 'picked' | 'history'>>;

/** The keys of a view's items, in list order: the view registry's list (views.ts). */
export const listKeys = (s: NavState, view: ViewId): string[] => viewOf(view).list(s);

export const listLength = (s: NavState, view: ViewId): number => listKeys(s, view).length;

const picksOf = (s: NavState): Picks => s.picked ?? noPicks();

const NAV: readonly CommandId[] = ['move.up', 'move.down', 'move.left', 'move.right', 'move.top', 'move.bottom', 'page.up', 'page.down'];

export const isNav = (id: CommandId): boolean => NAV.includes(id);

/** Where a movement key takes a position in a list of `len` (unclamped). Left and right stay put. */
export const delta = (id: CommandId, page: number, len: number, at: number): number => {
  switch (id) {
    case 'move.up':
      return at - 1;
    case 'move.down':
      return at + 1;
    case 'move.top':
      return 0;
    case 'move.bottom':
      return len - 1;
    case 'page.up':
      return at - page;
    case 'page.down':
      return at + page;
    default:
      return at;
  }
};

export function navigate(s: NavState, id: CommandId): Partial<UiState> {
  if (id === 'view.next' || id === 'view.prev') return { view: nextView(s.view, id === 'view.next' ? 1 : -1) };
  if (id.startsWith('view.')) return { view: id.slice(5) as ViewId };
  const page = Math.max(1, s.pageSize);
  if (s.help.open) {
    // Clamped to the last full page, so PgUp after G or PgDn scrolls at once.
    const rows = helpRows(false).length;
    return { help: { open: true, offset: Math.min(Math.max(0, delta(id, page, rows, s.help.offset)), Math.max(0, rows - page)) } };
  }
  const keys = listKeys(s, s.view);
  const len = keys.length;
  // A movement picks the item it lands on: from now on the cursor follows that item's key.
  const pick = (at: number): Picks => ({ ...picksOf(s), [s.view]: keys[at] ?? null });
  if (s.view === 'progress') {
    const cols = s.ws.pipeline.steps.length;
    if (id === 'move.left' || id === 'move.right') {
      const row = clamp(s.cell.row, 0, Math.max(0, len - 1));
      return { cell: { row, col: clamp(s.cell.col + (id === 'move.left' ? -1 : 1), 0, Math.max(0, cols - 1)) }, picked: pick(row) };
    }
    const row = clamp(delta(id, page, len, clamp(s.cell.row, 0, Math.max(0, len - 1))), 0, Math.max(0, len - 1));
    return { cell: { row, col: clamp(s.cell.col, 0, Math.max(0, cols - 1)) }, picked: pick(row) };
  }
  const at = clamp(s.cursors[s.view], 0, Math.max(0, len - 1));
  const to = clamp(delta(id, page, len, at), 0, Math.max(0, len - 1));
  return { cursors: { ...s.cursors, [s.view]: to }, picked: pick(to) };
}

/**
 * After a list changed (a rescan, a flush of the runs, a filter, a skip, the redo queue): each
 * cursor moves to where its picked key now is. A picked key that left the list keeps its
 * clamped index and stays picked, so a key then refuses instead of acting on the row that
 * slid under the cursor; an empty pick takes the row under the cursor. `own`: the operator
 * changed the list (typed a filter, skipped a file), so a lost pick takes the row under the
 * cursor, as a movement would.
 */
export function clampCursors(s: NavState, own: boolean | 'filter' = false): Partial<UiState> {
  const picked = { ...picksOf(s) };
  const at: Record<ViewId, number> = { ...s.cursors, progress: s.cell.row };
  for (const v of VIEW_IDS) {
    const keys = listKeys(s, v);
    // Most changes leave the picked item where it was: one look, not a search.
    const found = picked[v] === null ? -1 : keys[at[v]] === picked[v] ? at[v] : keys.indexOf(picked[v]!);
    // A filter that hides the picked row starts at its first match, as a search does.
    at[v] = found >= 0 ? found : own === 'filter' ? 0 : clamp(at[v], 0, Math.max(0, keys.length - 1));
    if (picked[v] === null || (own && found < 0)) picked[v] = keys[at[v]] ?? null;
  }
  return { cursors: { ...at, progress: 0 }, cell: { row: at.progress, col: s.cell.col }, picked };
}

/** The pick moved to the row now under the cursor (after a refusal said the old one left). */
export function repick(s: NavState, view: ViewId): Partial<UiState> {
  const keys = listKeys(s, view);
  const at = view === 'progress' ? s.cell.row : s.cursors[view];
  return { picked: { ...picksOf(s), [view]: keys[at] ?? null } };
}

/** Whether a follow changed nothing (the store then skips the update). */
export const sameCursors = (s: Pick<UiState, 'cursors' | 'cell' | 'picked'>, n: Partial<UiState>): boolean =>
  VIEW_IDS.every((v) => (v === 'progress' || s.cursors[v] === n.cursors?.[v]) && s.picked[v] === n.picked?.[v]) && s.cell.row === n.cell?.row;
