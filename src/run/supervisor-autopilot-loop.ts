import type { WorkspaceConfig } from '../pipeline/config-types.js';
import { cellKey, type NextStep, type WorkspaceState } from '../types.js';
import { loadWorkspace } from '../workspace.js';
import { sanitizeLine } from '../sanitize.js';
import type { NewJournalEvent } from './journal.js';
import type { Ledger } from './ledger.js';
import { pickLaunches } from './supervisor-autopilot.js';
import type { Flight } from './supervisor-cell.js';
import type { AutopilotView, RunResult, SupervisorEvent } from './supervisor-types.js';

// Autopilot's loop: on each tick, read the plan from the disk and start what pickLaunches
// allows; pause when a global limit is hit (DOMAIN.md section 9, death-spiral guard) and
// say once why nothing more starts. Ticks never overlap: one asked for during a tick runs
// right after it.

export interface AutopilotHost {
  root: string;
  config: WorkspaceConfig;
  redoHalfProducts: boolean;
  isDriver: boolean;
  /** The journal is read and dead runs are reaped. */
  ready: Promise<void>;
  now(): number;
  ledger(): Ledger;
  append(e: NewJournalEvent): Promise<void>;
  emit(e: SupervisorEvent): void;
  isClosed(): boolean;
  /** Cells in flight (running or waiting for a retry), by cell key. */
  flights: ReadonlyMap<string, Flight>;
  /** Cells the operator cancelled in this session. */
  held: ReadonlySet<string>;
  budgetLeft(l: Ledger): number;
  launch(unit: string, step: string, o: { reason: string }): Promise<RunResult>;
}

export interface Autopilot {
  /** What the snapshot shows; a ledger pause is added by the caller. */
  view(): AutopilotView;
  /** The operator turns it on or off (`maxLaunches`: --max). */
  set(on: boolean, maxLaunches: number | null): Promise<void>;
  /** A global limit was hit: turn off, journal it once, tell the operator. */
  pauseFor(reason: string): Promise<void>;
  /** Look at the plan once and start what autopilot may start. */
  tick(): Promise<void>;
  /** Cells (unit/step keys) to take first when they are in the plan: the operator's redo queue. */
  prefer(keys: readonly string[]): void;
  /** The supervisor closes: off, journalled, without a message. */
  close(): Promise<void>;
}

// eslint-disable-next-line max-lines-per-function -- one closure over the autopilot's timer, queue and pause state; it splits with the supervisor (issue 9 item 2)
export function createAutopilot(h: AutopilotHost): Autopilot {
  const { config } = h;
  const state = { on: false, paused: false, reason: 'off', max: null as number | null, started: 0 };
  let lastIdle: string | null = null;
  let preferred: readonly string[] = [];

  /**
   * The plan with the operator's queued cells first (in queue order), the rest in plan order.
   * A queued redo was a half-product the plan offered to redo whatever the batch; once backed
   * up it is a not-started cell that batch gating would hold back. It stays launchable while
   * its dependencies are done, as it was before the backup.
   */
  const ordered = (ws: WorkspaceState): NextStep[] => {
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

  const pauseFor = async (reason: string): Promise<void> => {
    if (state.paused && state.reason === reason) return;
    const was = state.on;
    state.on = false;
    state.paused = true;
    state.reason = reason;
    if (was) await h.append({ type: 'autopilot', at: h.now(), on: false, reason: `paused: ${reason}` });
    h.emit({ type: 'autopilot', on: false, paused: true, reason, message: `autopilot paused: ${reason}; a human should look, then turn autopilot on again` });
  };

  const emitIdle = (reason: string): void => {
    if (lastIdle === reason) return;
    lastIdle = reason;
    h.emit({ type: 'idle', reason, message: `autopilot: nothing more to launch now — ${reason}` });
  };

  const tickOnce = async (): Promise<void> => {
    if (h.isClosed() || !h.isDriver) return;
    if (!state.on) {
      if (state.paused && h.flights.size === 0) emitIdle(`autopilot paused: ${state.reason}`);
      return;
    }
    const l = h.ledger();
    if (l.paused && l.pausedReason) {
      await pauseFor(l.pausedReason);
      if (h.flights.size === 0) emitIdle(`autopilot paused: ${l.pausedReason}`);
      return;
    }
    const maxLeft = state.max === null ? Infinity : state.max - state.started;
    const ws = await loadWorkspace(h.root, { config, running: new Set(h.flights.keys()) });
    if (!state.on || h.isClosed()) return;
    const inFlight = new Map([...h.flights.values()].map((f) => [cellKey(f.unit, f.step), f.agent]));
    const pick = pickLaunches({
      plan: ordered(ws),
      ledger: h.ledger(),
      config,
      inFlight,
      held: h.held,
      budget: Math.max(0, Math.min(h.budgetLeft(h.ledger()), maxLeft)),
      redoHalfProducts: h.redoHalfProducts,
    });
    for (const c of pick.launch) {
      state.started++;
      lastIdle = null;
      h.launch(c.unit, c.step, { reason: `autopilot: ${c.reason}` }).catch((err: Error) => h.emit({ type: 'notice', message: sanitizeLine(`${c.unit} ${c.step}: not launched: ${err.message}`) }));
    }
    if (pick.launch.length > 0 || h.flights.size > 0) return;
    const why =
      state.max !== null && maxLeft <= 0
        ? `--max ${state.max} steps reached`
        : h.budgetLeft(h.ledger()) <= 0
          ? `launch budget of this session used (limits.max_launches ${config.limits.maxLaunches})`
          : pick.blocked.length > 0
            ? pick.blocked.map((b) => `${b.unit} ${b.step}: ${b.why}`).slice(0, 4).join('; ')
            : 'nothing runnable in the plan';
    emitIdle(why);
  };

  let ticking = false;
  let again = false;
  const tick = async (): Promise<void> => {
    await h.ready;
    if (ticking) {
      again = true;
      return;
    }
    ticking = true;
    try {
      do {
        again = false;
        await tickOnce();
      } while (again);
    } catch (err) {
      h.emit({ type: 'notice', message: sanitizeLine(`autopilot: ${(err as Error).message}`) });
    } finally {
      ticking = false;
    }
  };

  return {
    view: () => ({ on: state.on, paused: state.paused, reason: state.reason }),
    prefer(keys) {
      if (keys.length === preferred.length && keys.every((k, i) => k === preferred[i])) return;
      preferred = [...keys];
      if (state.on) void tick();
    },
    async set(on, maxLaunches) {
      state.on = on;
      state.paused = false;
      state.reason = on ? 'on' : 'turned off by the operator';
      state.max = maxLaunches;
      state.started = 0;
      lastIdle = null;
      await h.append({ type: 'autopilot', at: h.now(), on, reason: on ? 'turned on by the operator' : 'turned off by the operator' });
      h.emit({ type: 'autopilot', on, paused: false, reason: state.reason, message: `autopilot ${on ? 'on' : 'off'}` });
      if (on) await tick();
    },
    pauseFor,
    tick,
    async close() {
      if (!state.on || !h.isDriver) return;
      state.on = false;
      await h.append({ type: 'autopilot', at: h.now(), on: false, reason: 'checkroom closed' }).catch(() => undefined);
    },
  };
}
