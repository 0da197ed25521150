import type { WorkspaceState } from '../types.js';
import { helpRows, type CommandId } from './keymap.js';
import { matrixOf, partialItems, planItems, sourceItems } from './select.js';
import { flightItems, healthItems } from './agents.js';
import type { UiState } from './store-types.js';
import { nextView, type ViewId } from './views.js';
import { clamp } from './window.js';

// Pure navigation: cursor moves, paging, view switches. State in, state change out; the
// store applies it with a functional update, so a burst of keys never reads a stale state.

export type NavState = Pick<UiState, 'view' | 'cursors' | 'cell' | 'filter' | 'skipped' | 'redoQueue' | 'pageSize' | 'help' | 'agents'> & { ws: WorkspaceState } & Partial<Pick<UiState, 'recovery'>>;

export function listLength(s: NavState, view: ViewId): number {
  switch (view) {
    case 'progress':
      return matrixOf(s.ws, s.filter).rows.length;
    case 'partials':
      return partialItems(s.ws, s.filter, s.skipped).length;
    case 'plan':
      return planItems(s.ws, s.filter, s.redoQueue, flightItems(s.agents)).length;
    case 'sources':
      return sourceItems(s.ws, s.filter, s.recovery?.resume?.disagreements, s.recovery?.scheduler ?? null).length;
    case 'health':
      return healthItems(s.agents).length;
  }
}

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
  const len = listLength(s, s.view);
  if (s.view === 'progress') {
    const cols = s.ws.pipeline.steps.length;
    if (id === 'move.left' || id === 'move.right') {
      return { cell: { row: clamp(s.cell.row, 0, Math.max(0, len - 1)), col: clamp(s.cell.col + (id === 'move.left' ? -1 : 1), 0, Math.max(0, cols - 1)) } };
    }
    const row = clamp(delta(id, page, len, clamp(s.cell.row, 0, Math.max(0, len - 1))), 0, Math.max(0, len - 1));
    return { cell: { row, col: clamp(s.cell.col, 0, Math.max(0, cols - 1)) } };
  }
  const at = clamp(s.cursors[s.view], 0, Math.max(0, len - 1));
  return { cursors: { ...s.cursors, [s.view]: clamp(delta(id, page, len, at), 0, Math.max(0, len - 1)) } };
}

/** Cursors pulled back inside their lists after the lists shrank (a rescan, a filter, a skip). */
export function clampCursors(s: NavState): Partial<UiState> {
  const fit = (v: ViewId, n: number) => clamp(n, 0, Math.max(0, listLength(s, v) - 1));
  return {
    cursors: { progress: 0, partials: fit('partials', s.cursors.partials), plan: fit('plan', s.cursors.plan), sources: fit('sources', s.cursors.sources), health: fit('health', s.cursors.health) },
    cell: { row: fit('progress', s.cell.row), col: s.cell.col },
  };
}
