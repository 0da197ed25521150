import type { WorkspaceState } from '../types.js';
import { cellKey } from '../types.js';
import type { SupervisorEvent } from '../run/supervisor/types.js';

// What `checkroom watch --json` streams: process-compose's event API, for
// pipelines. Plain data, one object per line; `at` is the instance's clock (ISO 8601, UTC).
// Fields are only ever added, like the status contract (src/cli/json.ts).

export type WatchEvent =
  | { type: 'hello'; at: string; workspace: string; pid: number; cells: number }
  | { type: 'cell'; at: string; unit: string; step: string; from: string | null; to: string | null }
  | { type: 'run-started'; at: string; unit: string; step: string; runId: string; attempt: number; agent: string }
  | { type: 'run-ended'; at: string; unit: string; step: string; outcome: 'done' | 'failed' | 'cancelled' | 'reaped'; detail: string }
  | { type: 'escalation'; at: string; unit: string; step: string; class: string; reason: string }
  /** `deadline` (added): when an open breaker turns half-open, the one every countdown is drawn from; null otherwise. */
  | { type: 'breaker'; at: string; agent: string; state: string; deadline: string | null }
  | { type: 'autopilot'; at: string; on: boolean; paused: boolean; reason: string }
  /** Events this client did not read in time were dropped (a slow consumer), `dropped` of them. */
  | { type: 'lagged'; at: string; dropped: number };

/** unit/step → status: what a cell-changed event compares. */
export const statusesOf = (s: WorkspaceState): Map<string, string> => new Map(s.cells.map((c) => [cellKey(c.unit, c.step), c.status]));

/** The cells whose status differs between two states, in the newer state's order (gone cells last). */
export function cellChanges(before: Map<string, string>, after: WorkspaceState, at: string): WatchEvent[] {
  const out: WatchEvent[] = [];
  const seen = new Set<string>();
  for (const c of after.cells) {
    const k = cellKey(c.unit, c.step);
    seen.add(k);
    const from = before.get(k) ?? null;
    if (from !== c.status) out.push({ type: 'cell', at, unit: c.unit, step: c.step, from, to: c.status });
  }
  for (const [k, from] of before) {
    if (seen.has(k)) continue;
    const i = k.lastIndexOf('/');
    out.push({ type: 'cell', at, unit: k.slice(0, i), step: k.slice(i + 1), from, to: null });
  }
  return out;
}

/**
 * cellChanges between two live states, by identity (a file event costs what
 * it touched): the live model keeps the cell objects of units it did not re-derive, so only
 * the cells that are new objects are compared. Null when the cell list itself moved (a unit
 * came or went): then the caller compares by key.
 */
export function cellChangesSince(before: WorkspaceState, after: WorkspaceState, at: string): WatchEvent[] | null {
  if (before.cells.length !== after.cells.length) return null;
  const out: WatchEvent[] = [];
  for (let i = 0; i < after.cells.length; i++) {
    const a = before.cells[i];
    const b = after.cells[i];
    if (a === b) continue;
    if (a.unit !== b.unit || a.step !== b.step) return null;
    if (a.status !== b.status) out.push({ type: 'cell', at, unit: b.unit, step: b.step, from: a.status, to: b.status });
  }
  return out;
}

/** The supervisor's events a script cares about; output lines, retries and notices are not streamed. */
export function fromSupervisor(e: SupervisorEvent, at: string): WatchEvent[] {
  switch (e.type) {
    case 'launch':
      return [{ type: 'run-started', at, unit: e.unit, step: e.step, runId: e.runId, attempt: e.attempt, agent: e.agent }];
    case 'done':
      return [{ type: 'run-ended', at, unit: e.unit, step: e.step, outcome: 'done', detail: e.message }];
    case 'cancelled':
      return [{ type: 'run-ended', at, unit: e.unit, step: e.step, outcome: 'cancelled', detail: e.message }];
    case 'reaped':
      return [{ type: 'run-ended', at, unit: e.unit, step: e.step, outcome: 'reaped', detail: e.message }];
    case 'failed': {
      const ended: WatchEvent = { type: 'run-ended', at, unit: e.unit, step: e.step, outcome: 'failed', detail: e.message };
      return e.escalated ? [ended, { type: 'escalation', at, unit: e.unit, step: e.step, class: e.class, reason: e.reason }] : [ended];
    }
    case 'breaker':
      return [{ type: 'breaker', at, agent: e.agent, state: e.state, deadline: e.deadline ? new Date(e.deadline).toISOString() : null }];
    case 'autopilot':
      return [{ type: 'autopilot', at, on: e.on, paused: e.paused, reason: e.reason }];
    default:
      return [];
  }
}
