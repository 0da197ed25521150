import type { WorkspaceConfig } from '../pipeline/config/types.js';
import type { RunRecord } from '../history/run-records.js';
import type { Ledger } from '../run/journal/ledger.js';
import { cellKey, type Cell, type WorkspaceState } from '../types.js';
import { exclusionOf } from './exclude.js';
import { BulkFilterError, DEFAULT_STATUSES, type BulkStatus, type CellFilter } from './filter.js';

// The cells a filter names (docs/redrive.md): the disk's state (the scan), the ledger's
// (escalations, holds, waits, skips) and the journal's runs (history/run-records.ts, THE
// derivation of a run: class, executor, end time). Cells that pass the filter but may not be
// acted on are listed apart with the reason exclusionOf gives.

export interface SelectInput {
  ws: Pick<WorkspaceState, 'cells' | 'units'>;
  ledger: Ledger | null;
  runs: readonly RunRecord[];
  config: Pick<WorkspaceConfig, 'pipeline' | 'agents'>;
  /** Cells in flight (running or waiting for a retry), by key. */
  flying: ReadonlySet<string>;
  /** Output path (workspace-relative) → why it is being written now. */
  written: ReadonlyMap<string, string>;
}

export interface SelectedCell {
  unit: string;
  step: string;
  key: string;
  agent: string | null;
  executor: string;
  status: BulkStatus;
  /** The last failed run that matched the filter's class and window, or the cell's last failure. */
  lastFailure: { class: string; at: number } | null;
}

export interface Excluded extends SelectedCell {
  why: string;
}

export interface Selection {
  cells: SelectedCell[];
  excluded: Excluded[];
}

const FAILED_RUN = (r: RunRecord): boolean => r.outcome === 'exited' && r.class !== null && r.class !== 'SUCCESS' && r.endedAt !== null;

/** A cell's state in the filter's words. */
export function bulkStatusOf(c: Cell, l: Ledger | null, flying: boolean): BulkStatus {
  const cl = l?.cells[cellKey(c.unit, c.step)];
  if (c.status === 'done' || c.marker) return 'done';
  if (flying || cl?.state === 'running' || c.status === 'running') return 'running';
  if (l?.bulk.skipped[cellKey(c.unit, c.step)]) return 'skipped';
  if (cl?.hold) return 'held';
  if (cl?.state === 'needs_human' || c.status === 'needs_human') return 'escalated';
  if (cl?.state === 'retrying') return 'waiting';
  if (c.status === 'failed' || (cl?.lastClass != null && cl.lastClass !== 'SUCCESS' && cl.lastClass !== 'CANCELLED')) return 'failed';
  if (c.status === 'partial') return 'partial';
  return 'not_started';
}

/** The units a filter names, checked against the workspace's: an unknown unit is an error, not an empty set. */
function unitSet(f: CellFilter, units: readonly string[]): ReadonlySet<string> | null {
  if (!f.units) return null;
  const out = new Set<string>();
  const known = (u: string): number => {
    const i = units.indexOf(u);
    if (i < 0) throw new BulkFilterError(`unit ${u} is not in this workspace: its units run ${units[0] ?? '(none)'}..${units.at(-1) ?? '(none)'}`);
    return i;
  };
  for (const u of f.units.names) out.add(units[known(u)]);
  for (const r of f.units.ranges) {
    const [a, b] = [known(r.from), known(r.to)];
    if (b < a) throw new BulkFilterError(`units=${r.from}..${r.to} runs backwards: write units=${r.to}..${r.from}`);
    for (let i = a; i <= b; i++) out.add(units[i]);
  }
  return out;
}

const inWindow = (f: CellFilter, r: RunRecord): boolean =>
  (!f.classes || f.classes.has(r.class!)) && (f.from === null || r.endedAt! >= f.from) && (f.to === null || r.endedAt! <= f.to);

/** The cells `f` selects, in the scan's order, and those it names but leaves out, with why. */
export function selectCells(f: CellFilter, i: SelectInput): Selection {
  const units = unitSet(f, i.ws.units);
  const agentOf = new Map(i.config.pipeline.steps.map((s) => [s.id, s.agent ?? null]));
  const failures = new Map<string, RunRecord[]>();
  for (const r of i.runs) if (FAILED_RUN(r)) failures.set(r.key, [...(failures.get(r.key) ?? []), r]);
  const statuses = f.statuses ?? new Set(DEFAULT_STATUSES);
  const byWindow = f.classes !== null || f.from !== null || f.to !== null;
  const out: Selection = { cells: [], excluded: [] };
  for (const c of i.ws.cells) {
    const key = cellKey(c.unit, c.step);
    if (units && !units.has(c.unit)) continue;
    if (f.steps && !f.steps.has(c.step)) continue;
    if (f.batches && (c.batch === null || !f.batches.has(c.batch))) continue;
    const agent = agentOf.get(c.step) ?? null;
    if (f.agents && (agent === null || !f.agents.has(agent))) continue;
    const executor = (agent && i.config.agents[agent]?.executor) || 'local';
    if (f.executors && !f.executors.has(executor)) continue;
    const runs = failures.get(key) ?? [];
    const hit = byWindow ? runs.filter((r) => inWindow(f, r)).at(-1) : runs.at(-1);
    if (byWindow && !hit) continue;
    const flying = i.flying.has(key);
    const status = bulkStatusOf(c, i.ledger, flying);
    const s: SelectedCell = { unit: c.unit, step: c.step, key, agent, executor, status, lastFailure: hit ? { class: hit.class!, at: hit.endedAt! } : null };
    const why = exclusionOf({ marker: c.marker || c.status === 'done', running: status === 'running', writtenBy: i.written.get(c.path) ?? null });
    // A cell the statuses leave out is not named at all; one they name but that may not be touched is listed with why.
    if (why && (f.statuses === null || statuses.has(status) || status === 'done' || status === 'running')) {
      if (byWindow || f.statuses !== null) out.excluded.push({ ...s, why });
      continue;
    }
    if (!statuses.has(status)) continue;
    out.cells.push(s);
  }
  return out;
}
