import type { Limits } from '../pipeline/config/types.js';
import type { SupervisorSnapshot } from '../run/supervisor/types.js';
import type { Cell, WorkspaceState } from '../types.js';
import { breakersOf } from './breakers.js';
import { cellsOf } from './cells.js';
import { autopilotOf, healthOf } from './health.js';
import { planOf } from './plan.js';
import { runsOf } from './runs.js';
import { quotaOf } from './quota.js';
import type { OperatorCellView, OperatorCounts, OperatorModel, OperatorRun } from './types.js';
import { cellTally, warningCount } from './ws-counts.js';
import { foresightFrom } from './foresight.js';
import { pauseOf } from './pause.js';
import { queuesOf } from './queues.js';
import type { Foresight } from '../foresight/types.js';

// The one operator model. Entry point: `buildOperatorModel(ws, sup, at)`.
// Every surface reads what it shows of counts, runs, breakers, escalations, autopilot, the
// plan and Health from here:
// - the control room: `operatorOf(state)` (src/ui/store/operator.ts), memoised per (ws, agents),
//   read by Header, AgentsBadge, Footer's messages, PlanView, HealthView and the tab counts;
// - `checkroom status` / `plan` / `partials` text and `--json`: `countsOf` / `scanCounts` and
//   `planOf` of a state derived with the journal's runs in flight (cli/scan-journal.ts: the
//   runs an observer's snapshot has); the socket's status text: the room's;
// - the named actions' and redo's queues, skips and holds (queues.ts): the header, Plan,
//   `status` text and `--json` (a scan's from the journal it folded) and the socket;
// - `watch --json`: its events carry the journal's escalation class (run/attempt/cell-move.ts).
// Parts from the workspace are kept per input object (the live model keeps unchanged cells as
// the same objects, so a change costs what it touched); parts from the snapshot cost
// O(cells with runs or attempts).

/** What the model needs of the supervisor: its snapshot and the configuration it runs with. */
export interface OperatorSupervisor {
  snap: SupervisorSnapshot | null;
  limits: Limits | null;
  /** Every configured agent's concurrency limit. */
  concurrency: Readonly<Record<string, number | null>>;
  /** Every configured agent's quota account id (run/quota/account.ts): who else waits when one account does. */
  accounts?: Readonly<Record<string, string>>;
}

type SupervisorParts = Pick<OperatorModel, 'runs' | 'breakers' | 'cells' | 'escalations' | 'autopilot' | 'health' | 'quota' | 'pause' | 'queues'>;

// The parts from the supervisor, kept while its snapshot and the clock reading are the same:
// a file event changes the workspace, not them.
let lastParts: { sup: OperatorSupervisor | null; snap: SupervisorSnapshot | null; at: number; parts: SupervisorParts } | null = null;

function supervisorParts(sup: OperatorSupervisor | null, at: number): SupervisorParts {
  const snap = sup?.snap ?? null;
  if (lastParts && lastParts.snap === snap && lastParts.at === at && lastParts.sup?.limits === sup?.limits && lastParts.sup?.concurrency === sup?.concurrency && lastParts.sup?.accounts === sup?.accounts) return lastParts.parts;
  const runs = runsOf(snap);
  const cells = cellsOf(snap, runs, sup?.limits ?? null);
  const breakers = breakersOf(snap, runs, sup ? { concurrency: sup.concurrency } : null, at);
  const escalations = [...cells.values()].flatMap((c) => (c.escalation ? [c.escalation] : []));
  const parts = { runs, breakers, cells, escalations, autopilot: autopilotOf(snap), health: healthOf(breakers, cells), quota: quotaOf(snap, at, sup?.accounts), pause: pauseOf(snap?.ledger ?? null, runs), queues: queuesOf(snap?.ledger ?? null) };
  lastParts = { sup, snap, at, parts };
  return parts;
}

// Foresight simulates every remaining cell: made at the model's clock to the minute (as a
// scan's is, cli/scan-foresight.ts, so the room, its socket and `status` say one ETA within a
// minute), and kept while the cells, the snapshot (the runs and breakers derive from it), the
// limits and that minute are the same: the 1 s tick does not schedule the whole plan again.
// Past FORESIGHT_LIVE_CELLS a file event alone does not schedule again either (a run's end is
// a journal event, which does): the simulation cost 0.5-0.7 s at 50k cells on a loaded
// machine, and the live path's budget per change is milliseconds (docs/foresight.md).
export const FORESIGHT_CLOCK_MS = 60_000;
export const FORESIGHT_LIVE_CELLS = 2_000;
let lastForesight: { cells: WorkspaceState['cells']; snap: SupervisorSnapshot | null; limits: Limits | null; quota: string; at: number; value: Foresight } | null = null;

/** The quota waits as foresight reads them: the 1 s tick makes a new list of the same waits. */
const quotaKey = (q: SupervisorParts['quota']): string => q.map((w) => `${w.account}@${w.deadline}:${w.agents.join(',')}:${w.cells}`).join('|');

function foresightPart(ws: WorkspaceState, sup: OperatorSupervisor | null, parts: SupervisorParts, now: number): Foresight {
  const snap = sup?.snap ?? null;
  const limits = sup?.limits ?? null;
  const at = now - (now % FORESIGHT_CLOCK_MS);
  const quota = quotaKey(parts.quota);
  const f = lastForesight;
  if (f && (f.cells === ws.cells || ws.cells.length > FORESIGHT_LIVE_CELLS) && f.snap === snap && f.limits === limits && f.quota === quota && f.at === at) return f.value;
  // The quota waits at the model's clock: the ETA counts the deadlines Health counts down to.
  const value = foresightFrom(ws, snap?.ledger ?? null, parts.runs, parts.breakers, limits, at, parts.quota);
  lastForesight = { cells: ws.cells, snap, limits, quota, at, value };
  return value;
}

export function buildOperatorModel(ws: WorkspaceState, sup: OperatorSupervisor | null, at: number): OperatorModel {
  const parts = supervisorParts(sup, at);
  const counts = countsOf(ws, sup?.snap ? parts.runs : null, parts.escalations.length);
  return { at, counts, ...parts, plan: planOf(ws.next), foresight: foresightPart(ws, sup, parts, at) };
}

/**
 * The counts every surface shows. `runs`: the supervisor's, when one is attached: its runs say
 * what runs (a queued job is pending, a cell between attempts is waiting; the live workspace's
 * running set holds all three); without one (the CLI, a cold scan) the workspace's own.
 */
export function countsOf(ws: WorkspaceState, runs: readonly OperatorRun[] | null = null, escalated = 0): OperatorCounts {
  const t = cellTally(ws.cells);
  const pending = runs?.filter((r) => r.state === 'pending').length ?? 0;
  const waiting = runs?.filter((r) => r.state === 'waiting').length ?? 0;
  return {
    total: t.total,
    done: t.done,
    partial: t.partial,
    failed: t.failed,
    needsHuman: t.needsHuman,
    running: runs ? runs.length - pending - waiting : t.running,
    notStarted: t.notStarted,
    // The fields above are `status --json`'s since its first version, in its order; the rest are added.
    discrepancies: ws.discrepancies.length,
    suspects: ws.suspects.length,
    pending,
    waiting,
    blocked: t.blocked,
    warnings: warningCount(ws),
    halfProducts: ws.partials.length,
    escalated,
  };
}

/**
 * The counts of `status --json` and the socket's document: the operator model's, without the
 * journal's escalations. `runs`: a control room's, or the journal's as a scan reads them
 * (cli/scan-journal.ts), so both say running, pending and waiting as the header does. `pending`,
 * `waiting`, `blocked`, `warnings` (the todo table's too) and `halfProducts` are added fields.
 */
export const scanCounts = (ws: WorkspaceState, runs: readonly OperatorRun[] | null = null): Omit<OperatorCounts, 'escalated'> => {
  const { escalated: _, ...c } = countsOf(ws, runs);
  return c;
};

const index = new WeakMap<readonly Cell[], Map<string, Cell>>();

/** One cell as the operator sees it (status, verdict, claim, what blocks it, its run); the index is built on first ask per cell array. */
export function cellView(ws: WorkspaceState, m: OperatorModel, key: string): OperatorCellView | null {
  let byKey = index.get(ws.cells);
  if (!byKey) index.set(ws.cells, (byKey = new Map(ws.cells.map((c) => [`${c.unit}/${c.step}`, c]))));
  const c = byKey.get(key);
  if (!c) return null;
  return { key, status: c.status, verdict: c.triage?.verdict ?? null, claim: c.checkpoint, blockedBy: c.blockedBy, run: m.cells.get(key) ?? null };
}
