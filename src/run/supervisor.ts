import { cellKey } from '../types.js';
import { targetOf } from './launch-spec.js';
import type { AdoptDeps } from './supervisor-adopt.js';
import { adoptRuns } from './supervisor-adopt-jobs.js';
import type { Ledger } from './ledger.js';
import { createAutopilot } from './supervisor-autopilot-loop.js';
import { driverPilot, KEPT_REASON } from './takeover.js';
import { previewCommand } from './supervisor-cell.js';
import { continueFor } from './supervisor-agent.js';
import { cellCoreOf, contextOf, type SupervisorCtx } from './supervisor-context.js';
import { breakerAction, cancelCell, flyCell, launchCell, resetCell } from './supervisor-launch.js';
import { closeNow, closeSupervisor, snapshotOf } from './supervisor-snapshot.js';
import { journalNews } from './journal-news.js';
import { createAlarms } from '../notify/alarms.js';
import type { Supervisor, SupervisorOptions } from './supervisor-types.js';

export * from './supervisor-types.js';

// The runner behind the control room and `checkroom run` (DOMAIN.md sections 8 and 9). The
// journal is the only source of truth: every count and breaker state shown is replayed from
// it, so a restart after kill -9 shows the same. One driver per workspace (driver.lock); a
// second instance is read-only and refuses every action that launches or changes state.
//
// close(): stops autopilot and waits for the runs in flight (with their retries) to end;
// it cancels nothing unless asked (`close({ cancel: true })`). Runs are never orphaned on
// purpose — a checkroom that leaves them running or is killed outright leaves them to the
// next driver, which adopts the live ones (issue 8 item 4). An observer takes over as driver
// as soon as the driver's lock is stale (item 5).
//
// The parts are functions of one context (supervisor-context.ts): cells and breakers in
// supervisor-launch.ts, snapshot and close in supervisor-snapshot.ts, one cell's attempts in
// supervisor-cell.ts; this file wires them (issue 9 item 3).

/** Runs whose stop had not landed when their checkroom ended (issue 17 item 7), until their exit. */
const pendingStopsOf = (l: Ledger): Set<string> => {
  const live = new Set(l.liveRuns.map((r) => r.runId));
  return new Set(l.decisions.filter((d) => d.kind === 'stop_pending' && d.note && live.has(d.note)).map((d) => d.note!));
};

/** Issue 12: runs of an earlier checkroom that went to a cluster are adopted through their executor. */
const adoptionOf = (x: SupervisorCtx): AdoptDeps => ({
  core: x.core,
  flights: x.flights,
  running: x.running,
  tick: () => void x.pilot.tick(),
  adoptJobs: (runs) => adoptRuns(x.root, x.config, runs, { now: x.now, append: x.journal.append, emit: x.emit, fly: (unit, step, t, adopted) => flyCell(x, unit, step, t, adopted), stop: (key) => void cancelCell(x, key, 'shutdown'), pendingStops: pendingStopsOf(x.journal.ledger()) }),
});

/**
 * A checkroom started after a handover (`checkroom unlock --handover`, then a new start) goes
 * on as the driver that handed over had it: autopilot kept on (issue 17 item 3; an observer
 * that takes over gets the same from role.takeOver). Read before this session starts; not
 * awaited from `init`, since autopilot's tick waits for `ready`.
 */
const keepAfterHandover = (x: SupervisorCtx, l: Ledger): void => {
  if (!l.handedOver || !driverPilot(l).on || !x.role.isDriver) return;
  void x.ready.then(() => x.pilot.set(true, null, KEPT_REASON)).catch(() => undefined);
};

/** The journal read, then (the driver) earlier runs adopted or settled, (an observer) the driver's runs followed. */
async function init(x: SupervisorCtx): Promise<void> {
  x.warnings.push(...(await x.journal.load()));
  if (x.role.isDriver) {
    const before = x.journal.ledger();
    await x.role.drive(adoptionOf(x));
    keepAfterHandover(x, before);
  } else x.observed.poll(x.journal.ledger());
  x.journal.seeBreakers();
  x.journal.noteBreakers();
}

const wire = (x: SupervisorCtx): void => {
  x.core = cellCoreOf(x);
  x.ready = init(x);
  x.ready.catch(() => undefined);
  x.pilot = createAutopilot({
    root: x.root,
    config: x.config,
    redoHalfProducts: x.redoHalfProducts,
    get isDriver() {
      return x.role.isDriver;
    },
    ready: x.ready,
    now: x.now,
    ledger: x.journal.ledger,
    append: x.journal.append,
    emit: x.emit,
    isClosed: () => x.state.closed,
    flights: x.flights,
    budgetLeft: x.budgetLeft,
    budgetWhy: (l) => x.budgetStop(l)?.reason ?? null,
    probing: () => new Set(x.probes.keys()),
    launch: (unit, step, o) => launchCell(x, unit, step, o),
  });
};

export function createSupervisor(opts: SupervisorOptions): Supervisor {
  const x = contextOf(opts);
  wire(x);
  // What an observer announces of the driver's lines (issue 18 items 1-2): one fold for its life.
  const news = journalNews();
  const target = (unit: string, step: string) => targetOf(x.root, x.config, unit, step);
  // The driver's alarms hear every event as a subscriber does (docs/notify.md).
  const alarms = x.config.notify ? createAlarms({ root: x.root, config: x.config, now: x.now, isDriver: x.isDriver, ledger: x.journal.ledger, append: x.journal.append, emit: x.emit }, x.config.notify) : null;
  if (alarms) x.listeners.add(alarms.see);
  return {
    ready: x.ready,
    root: x.root,
    launch: (unit, step, o) => launchCell(x, unit, step, o),
    cancel: (id) => cancelCell(x, id),
    async setAutopilot(on, o = {}) {
      await x.ready;
      x.refuse(on ? 'turn autopilot on' : 'turn autopilot off');
      await x.pilot.set(on, o.maxLaunches ?? null);
    },
    tick: () => x.pilot.tick(),
    prefer: (cells) => x.pilot.prefer(cells.map((c) => cellKey(c.unit, c.step))),
    resetBreaker: (agent) => breakerAction(x, agent, 'reset'),
    holdBreaker: (agent) => breakerAction(x, agent, 'hold'),
    releaseBreaker: (agent) => breakerAction(x, agent, 'release'),
    resetCell: (unit, step) => resetCell(x, unit, step),
    snapshot: () => snapshotOf(x),
    subscribe(fn) {
      x.listeners.add(fn);
      return () => void x.listeners.delete(fn);
    },
    describeCommand: (unit, step, o = {}) => previewCommand(x.root, x.journal.ledger(), target(unit, step), unit, step, o.continue === true),
    continuable: (unit, step) => continueFor(x.journal.ledger(), target(unit, step), unit, true),
    async note(e) {
      await x.ready;
      x.refuse('write the journal');
      await x.journal.append(e);
    },
    async refresh() {
      if (x.isDriver()) return;
      await x.journal.load();
      // The lines the driver appended since the last read, announced as the driver did, once:
      // `watch --json` on an observer carries what the driver's would (issue 18 items 1-2).
      for (const e of news.feed(x.journal.fresh())) x.emit(e);
      const had = x.state.closed ? null : await x.role.takeOver(adoptionOf(x));
      // Issue 17 item 3: the pipeline goes on as the driver that went had it.
      if (had?.on) await x.pilot.set(true, null, KEPT_REASON);
      if (!x.role.isDriver) x.observed.poll(x.journal.ledger());
      x.journal.noteBreakers();
    },
    close: (o = {}) => closeSupervisor(x, o).then(async (left) => (await alarms?.settle(), left)),
    closeNow: (reason) => closeNow(x, reason),
  };
}

/** createSupervisor, then wait until it is ready (journal read, dead runs reaped). */
export const openSupervisor = async (opts: SupervisorOptions): Promise<Supervisor> => {
  const s = createSupervisor(opts);
  await s.ready;
  return s;
};
