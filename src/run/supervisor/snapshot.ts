import { appendJournal, appendJournalNow, type LeftRunning } from '../journal/journal.js';
import { leaveFlights } from './leave.js';
import { liveAgentView } from './agent.js';
import { cancelCell } from './launch.js';
import type { SupervisorCtx } from './context.js';
import type { SupervisorSnapshot } from './types.js';

// What the supervisor shows and how it ends (issue 9 item 3: out of createSupervisor). The
// snapshot is replayed from the journal, so a restart after kill -9 shows the same; close
// waits for the runs in flight unless told to cancel them or leave them running.

export function snapshotOf(x: SupervisorCtx): SupervisorSnapshot {
  const l = x.journal.ledger();
  // An observer's own loop never runs: it shows the driver's autopilot, from the journal the
  // driver writes (issue 18 item 2: a second operator saw "autopilot off" while the driver had it on).
  const autopilot = x.isDriver() ? x.pilot.view() : { on: l.autopilot?.on ?? false, paused: false, reason: l.autopilot?.reason ?? 'off' };
  const flights = [...x.flights.values()];
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
  const keys = new Set(x.flights.keys());
  const driver = x.isDriver();
  const { limits, breaker } = x.config;
  return {
    role: x.role.lock.role,
    holder: x.role.lock.holder ?? null,
    readonlyReason: driver ? null : (x.role.lock.reason ?? 'read-only'),
    ledger: l,
    runs: driver ? own : [...own, ...x.observed.runs(l, mine)],
    waiting: driver ? ownWaiting : [...ownWaiting, ...x.observed.waiting(l, keys)],
    autopilot: { on: autopilot.on, paused: autopilot.paused || l.paused, reason: autopilot.paused ? autopilot.reason : (l.pausedReason ?? autopilot.reason) },
    launchesThisSession: l.launchesThisSession,
    limits: {
      maxLaunches: limits.maxLaunches,
      ...(limits.maxLaunchesWorkspace !== undefined ? { maxLaunchesWorkspace: limits.maxLaunchesWorkspace } : {}),
      maxConsecutiveFailures: limits.maxConsecutiveFailures,
      consecutiveFailures: l.consecutiveFailures,
      breakerThreshold: breaker.threshold,
    },
    warnings: [...x.warnings],
    notices: [...x.role.notices],
  };
}

/** The session stop is journaled once, then the lock goes (a successor may start at once). */
async function journalStop(x: SupervisorCtx, d: { reason: string; left?: LeftRunning[] }): Promise<void> {
  if (x.isDriver() && !x.state.stopped) {
    x.state.stopped = true;
    await appendJournal(x.root, { type: 'session', at: x.now(), kind: 'stop', pid: process.pid, ...d }).catch(() => undefined);
  }
  x.role.lock.release();
}

/** Close; with `leave`, the runs actually left running (what the journal's stop lists). */
export async function closeSupervisor(x: SupervisorCtx, o: { cancel?: boolean; leave?: boolean; reason?: string }): Promise<LeftRunning[]> {
  if (x.state.closed) return [];
  await x.ready.catch(() => undefined);
  await x.pilot.close();
  if (o.leave && x.isDriver()) {
    x.state.closed = true;
    x.journal.stop();
    const left = await leaveFlights(x.flights, x.running);
    await journalStop(x, { reason: o.reason ?? 'quit', left });
    return left;
  }
  if (o.cancel) for (const key of [...x.flights.keys()]) cancelCell(x, key, 'shutdown');
  x.state.closed = true;
  x.journal.stop();
  // No new attempt starts after close: cut backoff waits short (the cell ends ❌).
  for (const f of x.flights.values()) f.wait?.resolve(true);
  // An adopted run was not started here: not waited for, left to the next driver. Cancelled,
  // it is waited for like our own, so its kill lands and its exit is journalled before we return.
  if (!o.cancel)
    for (const [key, f] of x.flights)
      if (f.adopted && f.handle?.leave) {
        void f.handle.leave();
        x.running.delete(key);
      }
  await Promise.allSettled([...x.running.values()]);
  await journalStop(x, { reason: o.reason ?? 'quit' });
  return [];
}

/** A shutdown out of time: journal the stop synchronously and release the lock, now (issue 8 item 4). */
export function closeNow(x: SupervisorCtx, reason: string): void {
  x.state.closed = true;
  // A cluster job whose stop has not landed (its controller does not answer) outlives us:
  // the next start adopts it and asks for the stop again until it lands (issue 17 item 7).
  if (x.isDriver())
    for (const f of x.flights.values())
      if (f.cancelled && f.handle?.job && f.runId) appendJournalNow(x.root, { type: 'decision', at: x.now(), kind: 'stop_pending', unit: f.unit, step: f.step, note: f.runId });
  x.journal.stop();
  if (x.isDriver() && !x.state.stopped) appendJournalNow(x.root, { type: 'session', at: x.now(), kind: 'stop', pid: process.pid, reason });
  x.state.stopped = true;
  x.role.lock.release();
}
