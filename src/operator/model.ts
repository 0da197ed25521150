import type { Limits } from '../pipeline/config-types.js';
import type { SupervisorSnapshot } from '../run/supervisor-types.js';
import type { Cell, WorkspaceState } from '../types.js';
import { breakersOf } from './breakers.js';
import { cellsOf } from './cells.js';
import { autopilotOf, healthOf } from './health.js';
import { planOf } from './plan.js';
import { runsOf } from './runs.js';
import type { OperatorCellView, OperatorCounts, OperatorModel } from './types.js';
import { cellTally, warningCount } from './ws-counts.js';

// The one operator model (issue 18 item 1). Entry point: `buildOperatorModel(ws, sup, at)`.
// Every surface reads what it shows of counts, runs, breakers, escalations, autopilot, the
// plan and Health from here:
// - the control room: `operatorOf(state)` (src/app/operator.ts), memoised per (ws, agents),
//   read by Header, AgentsBadge, Footer's messages, PlanView, HealthView and the tab counts;
// - `checkroom status` / `plan` / `partials` text and `--json`, the socket's status text:
//   `buildOperatorModel(ws, null, at)` (no supervisor: the disk's claims);
// - `watch --json`: its events carry the journal's escalation class (run/cell-move.ts).
// Parts from the workspace are kept per input object (the live model keeps unchanged cells as
// the same objects, so a change costs what it touched); parts from the snapshot cost
// O(cells with runs or attempts).

/** What the model needs of the supervisor: its snapshot and the configuration it runs with. */
export interface OperatorSupervisor {
  snap: SupervisorSnapshot | null;
  limits: Limits | null;
  /** Every configured agent's concurrency limit. */
  concurrency: Readonly<Record<string, number | null>>;
}

export function buildOperatorModel(ws: WorkspaceState, sup: OperatorSupervisor | null, at: number): OperatorModel {
  const snap = sup?.snap ?? null;
  const runs = runsOf(snap);
  const cells = cellsOf(snap, runs, sup?.limits ?? null);
  const breakers = breakersOf(snap, runs, sup ? { concurrency: sup.concurrency } : null, at);
  const escalations = [...cells.values()].flatMap((c) => (c.escalation ? [c.escalation] : []));
  const t = cellTally(ws.cells);
  const inFlight = runs.filter((r) => r.state !== 'waiting');
  const pending = inFlight.filter((r) => r.state === 'pending').length;
  const counts: OperatorCounts = {
    ...t,
    // With a supervisor, its runs say what runs (a ⏳ claim with no process does not, and a
    // queued job is pending); without one (the CLI), the disk's claims.
    running: snap ? inFlight.length - pending : t.running,
    pending,
    waiting: runs.length - inFlight.length,
    warnings: warningCount(ws),
    halfProducts: ws.partials.length,
    suspects: ws.suspects.length,
    discrepancies: ws.discrepancies.length,
    escalated: escalations.length,
  };
  return { at, counts, runs, breakers, cells, escalations, autopilot: autopilotOf(snap), plan: planOf(ws.next), health: healthOf(breakers, cells) };
}

const index = new WeakMap<readonly Cell[], Map<string, Cell>>();

/** One cell as the operator sees it (status, verdict, claim, what blocks it, its run); the index is built on first ask per cell array. */
export function cellView(ws: WorkspaceState, m: OperatorModel, key: string): OperatorCellView | null {
  let byKey = index.get(ws.cells);
  if (!byKey) index.set(ws.cells, (byKey = new Map(ws.cells.map((c) => [`${c.unit}/${c.step}`, c]))));
  const c = byKey.get(key);
  if (!c) return null;
  return { key, status: c.status, verdict: c.triage?.verdict ?? null, claim: c.checkpoint, blockedBy: c.blockedBy, run: m.cells.get(key) ?? null };
}
