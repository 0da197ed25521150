import { CLOSED_REASON } from './takeover.js';
import type { WorkspaceConfig } from '../../pipeline/config/types.js';
import type { Budget, Emitter, JournalPort, Roles, WorkspaceRef } from './ports.js';
import { cellKey, type NextStep, type WorkspaceState } from '../../types.js';
import { loadWorkspace } from '../../workspace.js';
import { sanitizeLine } from '../../text/sanitize.js';
import { pickLaunches } from './autopilot.js';
import { drainStopOf } from '../policy/pause.js';
import { outputOf } from '../process/writers.js';
import { heldOutputs } from '../../holders/held-outputs.js';
import type { Flight } from '../attempt/cell-core.js';
import type { AutopilotView, RunResult } from './types.js';

// Autopilot's loop: on each tick, read the plan from the disk and start what pickLaunches
// allows; pause when a global limit is hit (docs/domain.md, Handling agent faults: the
// death-spiral guard) and
// say once why nothing more starts. Ticks never overlap: one asked for during a tick runs
// right after it.

/** What the loop needs of the supervisor: where, the journal, events, whether it drives, and a way to launch. */
export type AutopilotHost = WorkspaceRef &
  JournalPort &
  Emitter &
  Pick<Roles, 'isDriver'> & {
    redoHalfProducts: boolean;
    /** The journal is read and dead runs are reaped. */
    ready: Promise<void>;
    isClosed(): boolean;
    /** Cells in flight (running or waiting for a retry), by cell key. */
    flights: ReadonlyMap<string, Flight>;
    budget: Budget;
    /** Breakers whose half-open probe is claimed in this process (breaker-gate.ts). */
    probing(): ReadonlySet<string>;
    /** The operator's launch, as autopilot's reason says (supervisor-launch.ts). */
    launch(unit: string, step: string, o: { reason: string }): Promise<RunResult>;
  };

export interface Autopilot {
  /** What the snapshot shows; a ledger pause is added by the caller. */
  view(): AutopilotView;
  /** The operator turns it on or off (`maxLaunches`: --max). */
  /** `why`: the journaled reason (default: the operator's). */
  set(on: boolean, maxLaunches: number | null, why?: string): Promise<void>;
  /** A global limit was hit: turn off, journal it once, tell the operator. */
  pauseFor(reason: string): Promise<void>;
  /** Look at the plan once and start what autopilot may start. */
  tick(): Promise<void>;
  /** Cells (unit/step keys) to take first when they are in the plan: the operator's redo queue. */
  prefer(keys: readonly string[]): void;
  /** The supervisor closes: off, journalled, without a message. */
  close(): Promise<void>;
}

/** The autopilot's own state: on or paused and why, the --max count, the last idle reason said, the redo queue. */
interface PilotState {
  on: boolean;
  paused: boolean;
  reason: string;
  max: number | null;
  started: number;
  lastIdle: string | null;
  preferred: readonly string[];
}

/**
 * The plan with the operator's queued cells first (in queue order), the rest in plan order.
 * A queued redo was a half-product the plan offered to redo whatever the batch; once backed
 * up it is a not-started cell that batch gating would hold back. It stays launchable while
 * its dependencies are done, as it was before the backup.
 */
export const orderedPlan = (ws: WorkspaceState, preferred: readonly string[], config: WorkspaceConfig): NextStep[] => {
  if (preferred.length === 0) return ws.next;
  const rank = new Map(preferred.map((k, i) => [k, i]));
  const inPlan = new Set(ws.next.flatMap((n) => (n.unit !== null && n.step !== null ? [cellKey(n.unit, n.step)] : [])));
  const status = new Map(ws.cells.map((c) => [cellKey(c.unit, c.step), c.status]));
  const extra: NextStep[] = ws.cells
    .filter((c) => rank.has(cellKey(c.unit, c.step)) && !inPlan.has(cellKey(c.unit, c.step)) && c.status === 'not_started')
    .filter((c) => (config.pipeline.steps.find((s) => s.id === c.step)?.dependsOn ?? []).every((d) => status.get(cellKey(c.unit, d)) === 'done'))
    .map((c) => ({ priority: 3, unit: c.unit, step: c.step, action: 'run', reason: 'queued redo', blocks: 0 }));
  const at = (n: NextStep): number => (n.unit !== null && n.step !== null ? (rank.get(cellKey(n.unit, n.step)) ?? Infinity) : Infinity);
  return [...extra, ...ws.next].map((n, i) => ({ n, i, r: at(n) })).sort((a, b) => a.r - b.r || a.i - b.i).map((x) => x.n);
};

/** A global limit was hit: turn off, journal it once, tell the operator. */
const pauserOf =
  (h: AutopilotHost, st: PilotState) =>
  async (reason: string): Promise<void> => {
    if (st.paused && st.reason === reason) return;
    const was = st.on;
    st.on = false;
    st.paused = true;
    st.reason = reason;
    if (was) await h.append({ type: 'autopilot', at: h.now(), on: false, reason: `paused: ${reason}` });
    h.emit({ type: 'autopilot', on: false, paused: true, reason, message: `autopilot paused: ${reason}; a human should look, then turn autopilot on again` });
  };

/** Say once why nothing more starts. */
const emitIdle = (h: AutopilotHost, st: PilotState, reason: string): void => {
  if (st.lastIdle === reason) return;
  st.lastIdle = reason;
  h.emit({ type: 'idle', reason, message: `autopilot: nothing more to launch now — ${reason}` });
};

/** Why autopilot has nothing to start, most telling first. */
const idleWhy = (h: AutopilotHost, st: PilotState, maxLeft: number, pick: Pick<ReturnType<typeof pickLaunches>, 'blocked'>): string => {
  if (st.max !== null && maxLeft <= 0) return `--max ${st.max} steps reached`;
  if (h.budget.left(h.ledger()) <= 0) return h.budget.stop(h.ledger())?.reason ?? 'no launch budget left';
  if (pick.blocked.length > 0) return pick.blocked.map((b) => `${b.unit} ${b.step}: ${b.why}`).slice(0, 4).join('; ');
  return 'nothing runnable in the plan';
};

/** The outputs a launch of the plan would back up (failures and half-products have a file; not-started steps do not): the only ones /proc is asked about. */
const redoOutputs = (plan: readonly NextStep[], config: WorkspaceConfig): string[] =>
  plan.flatMap((n) => {
    const path = n.unit !== null && n.step !== null && n.priority <= 2 ? outputOf(config.pipeline, n.unit, n.step) : null;
    return path === null ? [] : [path];
  });

/** Look at the plan once and start what autopilot may start. */
async function tickOnce(h: AutopilotHost, st: PilotState, pauseFor: (reason: string) => Promise<void>): Promise<void> {
  if (h.isClosed() || !h.isDriver()) return;
  if (!st.on) {
    if (st.paused && h.flights.size === 0) emitIdle(h, st, `autopilot paused: ${st.reason}`);
    return;
  }
  const l = h.ledger();
  if (l.paused && l.pausedReason) {
    await pauseFor(l.pausedReason);
    if (h.flights.size === 0) emitIdle(h, st, `autopilot paused: ${l.pausedReason}`);
    return;
  }
  // Draining: nothing new of any kind (docs/drain.md, the one decision's drain part); said once, not per cell.
  const drain = drainStopOf(l.pause);
  if (drain) {
    if (h.flights.size === 0) emitIdle(h, st, drain.reason);
    return;
  }
  const maxLeft = st.max === null ? Infinity : st.max - st.started;
  const ws = await loadWorkspace(h.root, { config: h.config, running: new Set(h.flights.keys()) });
  if (!st.on || h.isClosed()) return;
  const inFlight = new Map([...h.flights.values()].map((f) => [cellKey(f.unit, f.step), f.agent]));
  const budget = Math.max(0, Math.min(h.budget.left(h.ledger()), maxLeft));
  const plan = orderedPlan(ws, st.preferred, h.config);
  const liveOutputs = heldOutputs(h.root, redoOutputs(plan, h.config), new Set(h.ledger().liveRuns.flatMap((r) => (r.pid ? [r.pid] : []))));
  const pick = pickLaunches({ plan, ledger: h.ledger(), config: h.config, inFlight, budget, redoHalfProducts: h.redoHalfProducts, probing: h.probing(), liveOutputs, now: h.now() });
  for (const c of pick.launch) {
    st.started++;
    st.lastIdle = null;
    h.launch(c.unit, c.step, { reason: `autopilot: ${c.reason}` }).catch((err: Error) => h.emit({ type: 'notice', message: sanitizeLine(`${c.unit} ${c.step}: not launched: ${err.message}`) }));
  }
  if (pick.launch.length > 0 || h.flights.size > 0) return;
  emitIdle(h, st, idleWhy(h, st, maxLeft, pick));
}

/** Ticks never overlap: one asked for during a tick runs right after it. */
const serialTicks = (h: AutopilotHost, once: () => Promise<void>): (() => Promise<void>) => {
  let ticking = false;
  let again = false;
  return async () => {
    await h.ready;
    if (ticking) {
      again = true;
      return;
    }
    ticking = true;
    try {
      do {
        again = false;
        await once();
      } while (again);
    } catch (err) {
      h.emit({ type: 'notice', message: sanitizeLine(`autopilot: ${(err as Error).message}`) });
    } finally {
      ticking = false;
    }
  };
};

export function createAutopilot(h: AutopilotHost): Autopilot {
  const st: PilotState = { on: false, paused: false, reason: 'off', max: null, started: 0, lastIdle: null, preferred: [] };
  const pauseFor = pauserOf(h, st);
  const tick = serialTicks(h, () => tickOnce(h, st, pauseFor));
  return {
    view: () => ({ on: st.on, paused: st.paused, reason: st.reason }),
    prefer(keys) {
      if (keys.length === st.preferred.length && keys.every((k, i) => k === st.preferred[i])) return;
      st.preferred = [...keys];
      if (st.on) void tick();
    },
    async set(on, maxLaunches, why) {
      Object.assign(st, { on, paused: false, reason: on ? 'on' : 'turned off by the operator', max: maxLaunches, started: 0, lastIdle: null });
      await h.append({ type: 'autopilot', at: h.now(), on, reason: why ?? (on ? 'turned on by the operator' : 'turned off by the operator') });
      h.emit({ type: 'autopilot', on, paused: false, reason: st.reason, message: `autopilot ${on ? 'on' : 'off'}` });
      if (on) await tick();
    },
    pauseFor,
    tick,
    async close() {
      if (!st.on || !h.isDriver()) return;
      st.on = false;
      await h.append({ type: 'autopilot', at: h.now(), on: false, reason: CLOSED_REASON }).catch(() => undefined);
    },
  };
}
