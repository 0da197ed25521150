import { appendJournal, appendJournalNow, type LeftRunning } from '../journal/journal.js';
import { leaveFlights } from './leave.js';
import { liveAgentView } from './agent.js';
import type { Autopilot } from './autopilot-loop.js';
import type { DriverView } from './observe.js';
import type { Role } from './role.js';
import type { SupervisorJournal } from './journal.js';
import type { CellRunner, InFlight, JournalPort, SessionState, WorkspaceRef } from './ports.js';
import type { SupervisorSnapshot } from './types.js';

// What the supervisor shows and how it ends. The snapshot is replayed from the journal, so a
// restart after kill -9 shows the same; close waits for the runs in flight unless told to
// cancel them or leave them running.

/** What the snapshot reads: all of it derived from the journal, the flights and the role. */
export interface SnapshotPorts {
  ws: WorkspaceRef;
  journal: Pick<JournalPort, 'ledger'>;
  role: Pick<Role, 'isDriver' | 'lock' | 'notices'>;
  pilot: Pick<Autopilot, 'view'>;
  inFlight: Pick<InFlight, 'flights'>;
  observed: DriverView;
  warnings: readonly string[];
}

export function snapshotOf({ ws, journal, role, pilot, inFlight, observed, warnings }: SnapshotPorts): SupervisorSnapshot {
  const l = journal.ledger();
  const driver = role.isDriver;
  // An observer's own loop never runs: it shows the driver's autopilot, from the journal the
  // driver writes (a second operator saw "autopilot off" while the driver had it on).
  const autopilot = driver ? pilot.view() : { on: l.autopilot?.on ?? false, paused: false, reason: l.autopilot?.reason ?? 'off' };
  const flights = [...inFlight.flights.values()];
  const own = flights
    .filter((f) => f.handle && f.runId)
    .map((f) => ({
      runId: f.runId!,
      unit: f.unit,
      step: f.step,
      agent: f.agent,
      attempt: f.attempt,
      pid: f.handle!.pid,
      logPath: f.logPath!,
      startedAt: f.startedAt,
      ...liveAgentView(f.watch ?? null, f.handle!.lines()),
      ...(f.adopted ? { origin: 'adopted' as const } : {}),
      job: f.handle!.job ?? null,
      why: f.handle!.why?.() ?? null,
    }));
  const ownWaiting = flights
    .filter((f) => f.wait)
    .map((f) => ({ unit: f.unit, step: f.step, agent: f.agent, retryAt: f.wait!.retryAt, reason: f.wait!.reason }));
  // An observer sees the driver's runs and countdowns, replayed from the driver's journal.
  const mine = new Set(flights.flatMap((f) => (f.runId ? [f.runId] : [])));
  const keys = new Set(inFlight.flights.keys());
  const { limits, breaker } = ws.config;
  return {
    role: role.lock.role,
    holder: role.lock.holder ?? null,
    readonlyReason: driver ? null : (role.lock.reason ?? 'read-only'),
    ledger: l,
    runs: driver ? own : [...own, ...observed.runs(l, mine)],
    waiting: driver ? ownWaiting : [...ownWaiting, ...observed.waiting(l, keys)],
    autopilot: { on: autopilot.on, paused: autopilot.paused || l.paused, reason: autopilot.paused ? autopilot.reason : (l.pausedReason ?? autopilot.reason) },
    launchesThisSession: l.launchesThisSession,
    limits: {
      maxLaunches: limits.maxLaunches,
      ...(limits.maxLaunchesWorkspace !== undefined ? { maxLaunchesWorkspace: limits.maxLaunchesWorkspace } : {}),
      maxConsecutiveFailures: limits.maxConsecutiveFailures,
      consecutiveFailures: l.consecutiveFailures,
      breakerThreshold: breaker.threshold,
    },
    warnings: [...warnings],
    notices: [...role.notices],
  };
}

/** What ending the session touches: the lock, the journal file and its timers, the flights, autopilot. */
export interface ClosePorts {
  ws: WorkspaceRef;
  clock: Pick<JournalPort, 'now'>;
  role: Pick<Role, 'isDriver' | 'lock'>;
  session: SessionState;
  /** Its cooldown timers stop; the stop itself is appended to the file directly (the last line). */
  journal: Pick<SupervisorJournal, 'stop'>;
  inFlight: InFlight;
}

/** The session stop is journaled once, then the lock goes (a successor may start at once). */
async function journalStop({ ws, clock, role, session }: ClosePorts, d: { reason: string; left?: LeftRunning[] }): Promise<void> {
  if (role.isDriver && !session.stopped) {
    session.stopped = true;
    await appendJournal(ws.root, { type: 'session', at: clock.now(), kind: 'stop', pid: process.pid, ...d }).catch(() => undefined);
  }
  role.lock.release();
}

/** Close; with `leave`, the runs actually left running (what the journal's stop lists). */
export async function closeSupervisor(
  p: ClosePorts & { ready: Promise<void>; pilot: Pick<Autopilot, 'close'>; cells: Pick<CellRunner, 'cancel'> },
  o: { cancel?: boolean; leave?: boolean; reason?: string },
): Promise<LeftRunning[]> {
  const { session, journal, inFlight, role } = p;
  if (session.closed) return [];
  await p.ready.catch(() => undefined);
  await p.pilot.close();
  if (o.leave && role.isDriver) {
    session.closed = true;
    journal.stop();
    const left = await leaveFlights(inFlight.flights, inFlight.running);
    await journalStop(p, { reason: o.reason ?? 'quit', left });
    return left;
  }
  if (o.cancel) for (const key of [...inFlight.flights.keys()]) p.cells.cancel(key, 'shutdown');
  session.closed = true;
  journal.stop();
  // No new attempt starts after close: cut backoff waits short (the cell ends ❌).
  for (const f of inFlight.flights.values()) f.wait?.resolve(true);
  // An adopted run was not started here: not waited for, left to the next driver. Cancelled,
  // it is waited for like our own, so its kill lands and its exit is journalled before we return.
  if (!o.cancel)
    for (const [key, f] of inFlight.flights)
      if (f.adopted && f.handle?.leave) {
        void f.handle.leave();
        inFlight.running.delete(key);
      }
  await Promise.allSettled([...inFlight.running.values()]);
  await journalStop(p, { reason: o.reason ?? 'quit' });
  return [];
}

/** A shutdown out of time: journal the stop synchronously and release the lock, now (docs/reliability.md, A driver whose terminal vanished). */
export function closeNow({ ws, clock, role, session, journal, inFlight }: ClosePorts, reason: string): void {
  session.closed = true;
  // A cluster job whose stop has not landed (its controller does not answer) outlives us:
  // the next start adopts it and asks for the stop again until it lands.
  if (role.isDriver)
    for (const f of inFlight.flights.values())
      if (f.cancelled && f.handle?.job && f.runId)
        appendJournalNow(ws.root, { type: 'decision', at: clock.now(), kind: 'stop_pending', unit: f.unit, step: f.step, note: f.runId });
  journal.stop();
  if (role.isDriver && !session.stopped) appendJournalNow(ws.root, { type: 'session', at: clock.now(), kind: 'stop', pid: process.pid, reason });
  session.stopped = true;
  role.lock.release();
}
