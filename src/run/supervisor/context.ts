import { existsSync } from 'node:fs';
import type { WorkspaceConfig } from '../../pipeline/config/types.js';
import { sanitizeLine } from '../../text/sanitize.js';
import { cellKey } from '../../types.js';
import { budgetStopOf, launchesLeft } from '../policy/budget.js';
import { passBreaker, releaseProbes, type ProbeClaims } from '../policy/breaker-gate.js';
import { markCells, type CellMark } from '../attempt/launch-checkpoint.js';
import { retryStopOf } from '../policy/retry-stop.js';
import { pauseStopOf } from '../policy/pause.js';
import type { Flight } from '../attempt/cell-core.js';
import type { Role } from './role.js';
import type { SupervisorJournal } from './journal.js';
import type { Budget, Emit, LaunchGate, Marker, Roles, SessionState, WorkspaceRef } from './ports.js';
import { SupervisorError, type SupervisorEvent, type SupervisorOptions } from './types.js';

// How each narrow port (supervisor-ports.ts) is made from the parts that keep its state:
// small factories, so supervisor.ts, which wires them, reads as the list of what is built
// from what. The journal stays the only source of truth.

/** Events to `onEvent` first, then every subscriber; untrusted text made one line. */
export const emitterOf =
  (opts: Pick<SupervisorOptions, 'onEvent'>, listeners: ReadonlySet<(e: SupervisorEvent) => void>): Emit =>
  (raw) => {
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

/**
 * One writer at a time: two runs ending together must not lose each other's cell. The marks
 * that queue while a write runs go out together in the next one (markCells: one read, one
 * write), so a burst of starts — an array's cells, autopilot filling its slots — costs a write
 * or two, not one per cell. Each mark resolves when the write that carried it is done.
 */
export const markerOf = ({ root, config }: WorkspaceRef, now: () => number, emit: Emit, write: typeof markCells = markCells): Marker => {
  let pending: { mark: CellMark; done: () => void; fail: (err: unknown) => void }[] = [];
  let writing = false;
  const drain = async (): Promise<void> => {
    writing = true;
    while (pending.length > 0) {
      const batch = pending;
      pending = [];
      try {
        const r = await write(root, config, batch.map((b) => b.mark), now());
        if (r.rebuilt) emit({ type: 'notice', message: sanitizeLine(r.rebuilt) });
        for (const b of batch) b.done();
      } catch (err) {
        for (const b of batch) b.fail(err);
      }
    }
    writing = false;
  };
  return {
    mark(unit, step, claim) {
      return new Promise<void>((done, fail) => {
        pending.push({ mark: { unit, step, claim }, done, fail });
        if (!writing) void drain();
      });
    },
  };
};

/** Driver or observer, and why an action is refused: another driver, this supervisor closed, the workspace gone. */
export const rolesOf = (root: string, role: Role, session: Pick<SessionState, 'closed'>): Roles => ({
  isDriver: () => role.isDriver,
  refuse(what) {
    if (!role.isDriver) throw new SupervisorError(`read-only: cannot ${what}; ${role.lock.reason ?? 'another checkroom drives this workspace'}`);
    if (session.closed) throw new SupervisorError(`cannot ${what}: this supervisor is closed`);
    if (!existsSync(root)) throw new SupervisorError(`cannot ${what}: the workspace directory ${root} is gone (deleted or moved)`);
  },
});

/** The budgets with the launches reserved and not yet journalled counted (budget.ts: the one decision). */
export const budgetOf = (config: WorkspaceConfig, session: Pick<SessionState, 'reserved'>): Budget => ({
  left: (l) => launchesLeft(l, config.limits, session.reserved),
  stop: (l) => budgetStopOf(l, config.limits, session.reserved),
});

export interface GateParts {
  config: WorkspaceConfig;
  journal: Pick<SupervisorJournal, 'ledger' | 'waitForBreaker'>;
  budget: Pick<Budget, 'stop'>;
  session: SessionState;
  /** Half-open breakers' probes claimed by a cell and not yet ended (breaker-gate.ts). */
  probes: ProbeClaims;
}

/** Drain or a pause holding this flight's next attempt (pause.ts, the one decision), or null. */
const pauseOfFlight = (config: WorkspaceConfig, l: ReturnType<SupervisorJournal['ledger']>, f: Flight) =>
  pauseStopOf(l.pause, { unit: f.unit, step: f.step, agent: f.agent, executor: config.agents[f.agent]?.executor ?? 'local' });

/** What lets one attempt start (a launch reserved, the breakers passed) and what it frees when it ends. */
export const launchGateOf = ({ config, journal, budget, session, probes }: GateParts): LaunchGate => ({
  reserveLaunch(flight) {
    // Every attempt asks, not only the first: a retry or the end of a quota wait is a new launch.
    const paused = pauseOfFlight(config, journal.ledger(), flight);
    if (paused) return paused.reason;
    const stop = flight.overBudget ? null : budget.stop(journal.ledger());
    if (stop) return stop.reason;
    session.reserved++;
    return null;
  },
  releaseLaunch() {
    session.reserved = Math.max(0, session.reserved - 1);
  },
  retryStop(flight) {
    const l = journal.ledger();
    return retryStopOf(l, config.limits, { closed: session.closed, budget: flight.overBudget ? null : budget.stop(l), paused: pauseOfFlight(config, l, flight) });
  },
  waitForBreaker: (flight, agent) =>
    journal.waitForBreaker(flight, agent, () => passBreaker(journal.ledger().agents[agent], probes, cellKey(flight.unit, flight.step), config.breaker)),
  releaseProbes: (key) => releaseProbes(probes, key),
});
