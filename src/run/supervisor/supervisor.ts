import { resolve } from 'node:path';
import { cellKey } from '../../types.js';
import { targetOf } from '../attempt/launch-spec.js';
import type { ProbeClaims } from '../policy/breaker-gate.js';
import type { AdoptDeps } from './adopt.js';
import { adoptRuns } from './adopt-jobs.js';
import type { Ledger } from '../journal/ledger.js';
import { createAutopilot } from './autopilot-loop.js';
import { driverPilot, KEPT_REASON } from './takeover.js';
import { previewCommand } from './cell.js';
import { continueFor } from './agent.js';
import { budgetOf, emitterOf, launchGateOf, markerOf, rolesOf } from './context.js';
import { createSupervisorJournal, type SupervisorJournal } from './journal.js';
import { driverView, type DriverView } from './observe.js';
import type { AutopilotPort, CellCore, CellRunner, InFlight, JournalPort, SessionState, WorkspaceRef } from './ports.js';
import { createRole, type Role } from './role.js';
import { breakerAction, cancelCell, flyCell, launchCell, resetCell, type LaunchOptions } from './launch.js';
import { closeNow, closeSupervisor, snapshotOf } from './snapshot.js';
import { journalNews } from '../journal/news.js';
import { createAlarms } from '../../notify/alarms.js';
import { DEFAULT_LOGS_MAX_BYTES } from '../../pipeline/defaults.js';
import { withLogBudget } from '../logs/prune.js';
import type { Supervisor, SupervisorEvent, SupervisorOptions } from './types.js';
import { drainAll, redrive, undoRedrive } from './redrive.js';
import { drainWatch, pauseAction } from './pause-action.js';
import { applyConcurrency, setConcurrency } from './concurrency.js';
import type { WorkspaceConfig } from '../../pipeline/config/types.js';

export * from './types.js';

// The runner behind the control room and `checkroom run`
// (docs/domain.md, Handling agent faults). The journal is the only source of truth: every
// count and breaker state shown is replayed from it, so a restart after kill -9 shows the
// same. One driver per workspace (driver.lock); a second instance is read-only and refuses
// every action that launches or changes state.
//
// close(): stops autopilot and waits for the runs in flight (with their retries) to end;
// it cancels nothing unless asked (`close({ cancel: true })`). Runs are never orphaned on
// purpose — a checkroom that leaves them running or is killed outright leaves them to the
// next driver, which adopts the live ones; an observer takes over as driver as soon as the
// driver's lock is stale (docs/reliability.md, "Agents outlive checkroom" and "Observers see
// what the driver sees").
//
// The parts talk through narrow ports (supervisor-ports.ts): cells and breakers in
// supervisor-launch.ts, snapshot and close in supervisor-snapshot.ts, one cell's attempts in
// supervisor-cell.ts. This file is the one place the ports are built and handed out.

/** Runs whose stop had not landed when their checkroom ended, until their exit. */
const pendingStopsOf = (l: Ledger): Set<string> => {
  const live = new Set(l.liveRuns.map((r) => r.runId));
  return new Set(l.decisions.filter((d) => d.kind === 'stop_pending' && d.note && live.has(d.note)).map((d) => d.note!));
};

interface InitParts {
  sj: SupervisorJournal;
  config: WorkspaceConfig;
  role: Role;
  observed: DriverView;
  warnings: string[];
  adoption(): AdoptDeps;
  /**
   * A checkroom started after a handover (`checkroom unlock --handover`, then a new start)
   * goes on as the driver that handed over had it: autopilot kept on (an observer that takes
   * over gets the same from role.takeOver). Not awaited from `init`, since autopilot's tick
   * waits for `ready`.
   */
  keepPilotOn(): void;
}

/** The journal read, then (the driver) earlier runs adopted or settled, (an observer) the driver's runs followed. */
async function init({ sj, config, role, observed, warnings, adoption, keepPilotOn }: InitParts): Promise<void> {
  warnings.push(...(await sj.load()));
  // The operator's concurrency outlives a restart (docs/scale-out.md, Arrays).
  applyConcurrency(config, sj.ledger());
  if (role.isDriver) {
    // Read before this session starts: the journal as the driver that went left it.
    const before = sj.ledger();
    await role.drive(adoption());
    if (before.handedOver && driverPilot(before).on && role.isDriver) keepPilotOn();
  } else observed.poll(sj.ledger());
  sj.seeBreakers();
  sj.noteBreakers();
}

/**
 * Build every port from the parts that keep its state, and wire them. Cells and autopilot
 * call each other (a cell that ends asks autopilot to look again; autopilot launches cells),
 * so the parts built before autopilot reach it through `pilot`, whose functions are first
 * called once `init` has awaited the journal's read, after `autopilot` is assigned.
 */
function wire(opts: SupervisorOptions) {
  const ws: WorkspaceRef = { root: resolve(opts.root), config: opts.config };
  const { config } = ws;
  const now = opts.now ?? Date.now;
  const listeners = new Set<(e: SupervisorEvent) => void>();
  const emit = emitterOf(opts, listeners);
  const session: SessionState = { reserved: 0, closed: false, stopped: false };
  // A tick is also when a drain may have become drained (a cell left the flights, a resume, a takeover).
  const pilot: AutopilotPort = { tick: () => (void autopilot.tick(), drained()), pauseFor: (reason) => autopilot.pauseFor(reason) };
  const isClosed = (): boolean => session.closed;
  const sj = createSupervisorJournal({
    root: ws.root,
    now,
    ledgerCfg: { breaker: config.breaker, limits: config.limits },
    emit,
    onCooldownEnd: pilot.tick,
    isClosed,
  });
  // The logs' disk budget (docs/logs.md): after each exit, oldest attempts' logs go first.
  withLogBudget(sj, { root: ws.root, now, emit, maxBytes: config.logs?.maxBytes ?? DEFAULT_LOGS_MAX_BYTES });
  const journal: JournalPort = { append: sj.append, ledger: sj.ledger, now };
  // --readonly: the journal is read (the Health view shows its history) but the driver lock
  // is not even taken, and every action is refused.
  const role = createRole({ ...ws, ...journal, emit, readonly: !!opts.readonly });
  const roles = rolesOf(ws.root, role, session);
  const budget = budgetOf(config, session);
  const probes: ProbeClaims = new Map();
  const inFlight: InFlight = { flights: new Map(), running: new Map() };
  const marker = markerOf(ws, now, emit);
  const gate = launchGateOf({ config, journal: sj, budget, session, probes });
  const core: CellCore = { ...ws, ...journal, emit, ...marker, ...gate, pauseFor: pilot.pauseFor, rand: opts.rand ?? Math.random };
  const cells: CellRunner = {
    fly: (unit, step, t, adopted, o) => flyCell({ core, inFlight, probes, pilot }, unit, step, t, adopted, o),
    cancel: (id, by) => cancelCell({ roles, inFlight, journal }, id, by),
  };
  // Runs of an earlier checkroom that went to a cluster are adopted through their executor.
  const adoption = (): AdoptDeps => ({
    core,
    inFlight,
    pilot,
    adoptJobs: (runs) => adoptRuns(ws, runs, { journal, emit, cells, pendingStops: pendingStopsOf(journal.ledger()) }),
  });
  const drained = drainWatch({ journal, emit, inFlight, roles });
  const observed = driverView();
  const warnings: string[] = [];
  const keepPilotOn = (): void => void ready.then(() => autopilot.set(true, null, KEPT_REASON)).catch(() => undefined);
  const ready = init({ sj, config, role, observed, warnings, adoption, keepPilotOn });
  ready.then(drained, () => undefined);
  const launch = (unit: string, step: string, o?: LaunchOptions) => launchCell({ ready, roles, ws, journal, budget, inFlight, probes, cells }, unit, step, o);
  const autopilot = createAutopilot({
    ...ws,
    ...journal,
    emit,
    isDriver: roles.isDriver,
    redoHalfProducts: opts.redoHalfProducts ?? true,
    ready,
    isClosed,
    flights: inFlight.flights,
    budget,
    probing: () => new Set(probes.keys()),
    launch,
  });
  return { ws, sj, journal, emit, listeners, session, role, roles, pilot, autopilot, inFlight, cells, marker, observed, warnings, ready, launch, adoption };
}

export function createSupervisor(opts: SupervisorOptions): Supervisor {
  const w = wire(opts);
  const { ws, sj, journal, role, roles, autopilot, inFlight, ready } = w;
  const operator = { ready, roles, ws, journal, pilot: w.pilot };
  const closing = { ws, clock: journal, role, session: w.session, journal: sj, inFlight };
  const redrivePorts = { ...operator, inFlight, launch: w.launch };
  // What an observer announces of the driver's lines: one fold for its life.
  const news = journalNews();
  const target = (unit: string, step: string) => targetOf(ws.root, ws.config, unit, step);
  // The driver's alarms hear every event as a subscriber does (docs/notify.md).
  const alarms = ws.config.notify
    ? createAlarms({ root: ws.root, config: ws.config, now: () => journal.now(), isDriver: () => roles.isDriver(), ledger: () => journal.ledger(), append: (e) => journal.append(e), emit: w.emit }, ws.config.notify)
    : null;
  if (alarms) w.listeners.add(alarms.see);
  return {
    ready,
    root: ws.root,
    launch: w.launch,
    cancel: (id) => w.cells.cancel(id),
    async setAutopilot(on, o = {}) {
      await ready;
      roles.refuse(on ? 'turn autopilot on' : 'turn autopilot off');
      await autopilot.set(on, o.maxLaunches ?? null);
    },
    tick: () => autopilot.tick(),
    prefer: (cells) => autopilot.prefer(cells.map((c) => cellKey(c.unit, c.step))),
    setPause: (req) => pauseAction({ ...operator, config: ws.config, emit: w.emit, inFlight }, req),
    resetBreaker: (agent) => breakerAction(operator, agent, 'reset'),
    holdBreaker: (agent) => breakerAction(operator, agent, 'hold'),
    releaseBreaker: (agent) => breakerAction(operator, agent, 'release'),
    setConcurrency: (agent, n) => setConcurrency(operator, agent, n),
    resetCell: (unit, step) => resetCell({ ...operator, inFlight, marker: w.marker }, unit, step),
    redrive: (o) => redrive(redrivePorts, o),
    drainRedrive: () => drainAll(redrivePorts, null),
    undoRedrive: (which) => undoRedrive(operator, which),
    snapshot: () => snapshotOf({ ws, journal, role, pilot: autopilot, inFlight, observed: w.observed, warnings: w.warnings }),
    subscribe(fn) {
      w.listeners.add(fn);
      return () => void w.listeners.delete(fn);
    },
    describeCommand: (unit, step, o = {}) => previewCommand(ws.root, journal.ledger(), target(unit, step), unit, step, o.continue === true),
    continuable: (unit, step) => continueFor(journal.ledger(), target(unit, step), unit, true),
    async note(e) {
      await ready;
      roles.refuse('write the journal');
      await journal.append(e);
    },
    async refresh() {
      if (roles.isDriver()) return;
      await sj.load();
      // The lines the driver appended since the last read, announced as the driver did, once:
      // `watch --json` on an observer carries what the driver's would.
      for (const e of news.feed(sj.fresh())) w.emit(e);
      const had = w.session.closed ? null : await role.takeOver(w.adoption());
      // The pipeline goes on as the driver that went had it.
      if (had?.on) await autopilot.set(true, null, KEPT_REASON);
      if (!role.isDriver) w.observed.poll(journal.ledger());
      sj.noteBreakers();
    },
    close: (o = {}) => closeSupervisor({ ...closing, ready, pilot: autopilot, cells: w.cells }, o).then(async (left) => (await alarms?.settle(), left)),
    closeNow: (reason) => closeNow(closing, reason),
  };
}

/** createSupervisor, then wait until it is ready (journal read, dead runs reaped). */
export const openSupervisor = async (opts: SupervisorOptions): Promise<Supervisor> => {
  const s = createSupervisor(opts);
  await s.ready;
  return s;
};
