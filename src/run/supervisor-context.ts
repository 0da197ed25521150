import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { WorkspaceConfig } from '../pipeline/config-types.js';
import type { Claim } from '../types.js';
import { sanitizeLine } from '../sanitize.js';
import type { Ledger } from './ledger.js';
import { createRole, type Role } from './supervisor-role.js';
import { driverView, type DriverView } from './supervisor-observe.js';
import { markCell } from './launch-checkpoint.js';
import { budgetStopOf, launchesLeft, type BudgetStop } from './budget.js';
import { passBreaker, releaseProbes, type ProbeClaims } from './breaker-gate.js';
import { cellKey } from '../types.js';
import { retryStopOf } from './retry-stop.js';
import type { Autopilot } from './supervisor-autopilot-loop.js';
import type { CellCore, Flight } from './cell-core.js';
import { DEFAULT_LOGS_MAX_BYTES } from '../pipeline/defaults.js';
import { withLogBudget } from './log-prune.js';
import { createSupervisorJournal, type SupervisorJournal } from './supervisor-journal.js';
import { SupervisorError, type RunResult, type SupervisorEvent, type SupervisorOptions } from './supervisor-types.js';

// What the supervisor's parts share (issue 9 item 3: createSupervisor was one 250-line
// closure). The launch, snapshot and close paths are plain functions of this context, each
// in its own module; supervisor.ts wires them. The journal stays the only source of truth.

export interface SupervisorCtx {
  root: string;
  config: WorkspaceConfig;
  now(): number;
  rand(): number;
  redoHalfProducts: boolean;
  role: Role;
  observed: DriverView;
  journal: SupervisorJournal;
  emit(e: SupervisorEvent): void;
  listeners: Set<(e: SupervisorEvent) => void>;
  warnings: string[];
  /** Cells running or waiting for their next attempt, by cell key. */
  flights: Map<string, Flight>;
  running: Map<string, Promise<RunResult>>;
  /** Half-open breakers' probes claimed by a cell and not yet ended (breaker-gate.ts, issue 17). */
  probes: ProbeClaims;
  /** Launches reserved and not yet journalled; closed: no new attempt starts; stopped: the session stop is journalled. */
  state: { reserved: number; closed: boolean; stopped: boolean };
  /** Set the cell's claim in the checkpoint, one writer at a time. */
  mark(unit: string, step: string, claim: Claim): Promise<void>;
  /** Launches the budgets still allow, reservations counted (budget.ts). */
  budgetLeft(l: Ledger): number;
  /** The budget the next launch would go past, reservations counted, or null (budget.ts: the one decision). */
  budgetStop(l: Ledger): BudgetStop | null;
  /** Throw the reason this instance may not do `what` now, if any. */
  refuse(what: string): void;
  isDriver(): boolean;
  // Wired after the context exists (supervisor.ts), in this order; nothing reads them before.
  core: CellCore;
  ready: Promise<void>;
  pilot: Autopilot;
}

const emitterOf =
  (opts: SupervisorOptions, listeners: Set<(e: SupervisorEvent) => void>) =>
  (raw: SupervisorEvent): void => {
    // Unit ids, agent output and paths are untrusted text: one line, no control characters.
    const e = { ...raw, message: sanitizeLine(raw.message) } as SupervisorEvent;
    for (const fn of [...(opts.onEvent ? [opts.onEvent] : []), ...listeners]) {
      try {
        fn(e);
      } catch {
        // a subscriber's bug must not stop a run
      }
    }
  };

/** One writer at a time: two runs ending together must not lose each other's cell. */
const markerOf = (root: string, config: WorkspaceConfig, now: () => number, emit: (e: SupervisorEvent) => void) => {
  let queue: Promise<void> = Promise.resolve();
  return (unit: string, step: string, claim: Claim): Promise<void> => {
    const next = queue.then(async () => {
      const r = await markCell(root, config, unit, step, claim, now());
      if (r.rebuilt) emit({ type: 'notice', message: sanitizeLine(r.rebuilt) });
    });
    queue = next.catch(() => undefined);
    return next;
  };
};

/** The context without core, ready and pilot, which supervisor.ts wires next. */
export function contextOf(opts: SupervisorOptions): SupervisorCtx {
  const root = resolve(opts.root);
  const { config } = opts;
  const now = opts.now ?? Date.now;
  const listeners = new Set<(e: SupervisorEvent) => void>();
  const emit = emitterOf(opts, listeners);
  const state = { reserved: 0, closed: false, stopped: false };
  const x = { root, config, now, rand: opts.rand ?? Math.random, redoHalfProducts: opts.redoHalfProducts ?? true, emit, listeners, state } as SupervisorCtx;
  // --readonly: the journal is read (the Health view shows its history) but the driver lock
  // is not even taken, and every action is refused.
  x.role = createRole({ root, config, readonly: !!opts.readonly, now, ledger: () => x.journal.ledger(), append: (e) => x.journal.append(e), emit });
  x.observed = driverView();
  x.warnings = [];
  x.flights = new Map();
  x.running = new Map();
  x.probes = new Map();
  x.journal = createSupervisorJournal({
    root,
    now,
    ledgerCfg: { breaker: config.breaker, limits: config.limits },
    emit,
    onCooldownEnd: () => void x.pilot.tick(),
    isClosed: () => state.closed,
  });
  withLogBudget(x.journal, { root, now, emit, maxBytes: config.logs?.maxBytes ?? DEFAULT_LOGS_MAX_BYTES });
  x.mark = markerOf(root, config, now, emit);
  x.budgetLeft = (l) => launchesLeft(l, config.limits, state.reserved);
  x.budgetStop = (l) => budgetStopOf(l, config.limits, state.reserved);
  x.isDriver = () => x.role.isDriver;
  x.refuse = (what) => {
    if (!x.isDriver()) throw new SupervisorError(`read-only: cannot ${what}; ${x.role.lock.reason ?? 'another checkroom drives this workspace'}`);
    if (state.closed) throw new SupervisorError(`cannot ${what}: this supervisor is closed`);
    if (!existsSync(root)) throw new SupervisorError(`cannot ${what}: the workspace directory ${root} is gone (deleted or moved)`);
  };
  return x;
}

/** What one cell's run needs from the supervisor. */
export const cellCoreOf = (x: SupervisorCtx): CellCore => ({
  root: x.root,
  config: x.config,
  now: x.now,
  rand: x.rand,
  append: x.journal.append,
  ledger: x.journal.ledger,
  emit: x.emit,
  mark: x.mark,
  reserveLaunch(flight) {
    const stop = flight.overBudget ? null : x.budgetStop(x.journal.ledger());
    if (stop) return stop.reason;
    x.state.reserved++;
    return null;
  },
  releaseLaunch() {
    x.state.reserved = Math.max(0, x.state.reserved - 1);
  },
  retryStop(flight) {
    const l = x.journal.ledger();
    return retryStopOf(l, x.config.limits, { closed: x.state.closed, budget: flight.overBudget ? null : x.budgetStop(l) });
  },
  waitForBreaker: (flight, agent) =>
    x.journal.waitForBreaker(flight, agent, () => passBreaker(x.journal.ledger().agents[agent], x.probes, cellKey(flight.unit, flight.step), x.config.breaker)),
  releaseProbes: (key) => releaseProbes(x.probes, key),
  pauseFor: (reason) => x.pilot.pauseFor(reason),
});
