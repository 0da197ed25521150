import type { KeyToken } from '../keys/keys.js';
import type { OverviewRow } from '../../many/rows.js';

// The overview's keys (docs/many.md, Keys), a pure reducer: the cursor follows the workspace
// it is on when the rows reorder by urgency; Enter opens a local workspace's control room (the
// entry does it: effect `open`) or a remote one's read-only detail; Esc closes the detail.

export interface OverviewUi {
  /** The workspace under the cursor, by its label (rows reorder as urgency changes). */
  picked: string | null;
  /** The label of the remote workspace whose detail is open. */
  detail: string | null;
}

export type OverviewEffect = { kind: 'open'; row: OverviewRow } | { kind: 'quit' } | { kind: 'refresh' } | null;

export const cursorOf = (ui: OverviewUi, rows: readonly OverviewRow[]): number => Math.max(0, rows.findIndex((r) => r.entry.label === ui.picked));

/** The overview's key table: one row per key, for the reducer and docs/many.md. */
export const OVERVIEW_KEYS = [
  { keys: '↑ ↓ (k j)', does: 'move between workspaces' },
  { keys: 'enter', does: 'open: a local workspace\'s control room (esc there comes back); a remote one\'s status, read-only' },
  { keys: 'esc', does: 'close a remote workspace\'s detail' },
  { keys: 'r', does: 'read every workspace again now' },
  { keys: 'q, ctrl-c', does: 'quit the overview' },
] as const;

export function overviewKey(ui: OverviewUi, rows: readonly OverviewRow[], t: KeyToken): { ui: OverviewUi; effect: OverviewEffect } {
  const at = cursorOf(ui, rows);
  const pick = (i: number): OverviewUi => ({ ...ui, picked: rows[Math.min(Math.max(0, i), rows.length - 1)]?.entry.label ?? null });
  if (t.ch === 'q' || (t.ctrl && t.ch === 'c')) return { ui, effect: { kind: 'quit' } };
  if (ui.detail !== null) return { ui: t.name === 'escape' ? { ...ui, detail: null } : ui, effect: null };
  if (t.name === 'up' || t.ch === 'k') return { ui: pick(at - 1), effect: null };
  if (t.name === 'down' || t.ch === 'j') return { ui: pick(at + 1), effect: null };
  if (t.ch === 'r') return { ui, effect: { kind: 'refresh' } };
  if (t.name === 'return') {
    const row = rows[at];
    if (!row) return { ui, effect: null };
    if (row.entry.kind === 'ssh') return { ui: { ...ui, picked: row.entry.label, detail: row.entry.label }, effect: null };
    return { ui: { ...ui, picked: row.entry.label }, effect: { kind: 'open', row } };
  }
  return { ui, effect: null };
}
