/* eslint-disable max-lines -- the supervisor's one factory with its launch, adopt and close paths; issue 9 item 3 splits it into a pure nextMove plus effects */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Claim } from '../types.js';
import { cellKey } from '../types.js';
import { sanitizeLine } from '../sanitize.js';
import { appendJournal, appendJournalNow, type LeftRunning } from './journal.js';
import type { Ledger } from './ledger.js';
import { createRole } from './supervisor-role.js';
import type { AdoptDeps } from './supervisor-adopt.js';
import { driverView } from './supervisor-observe.js';
import { leaveFlights } from './supervisor-leave.js';
import { targetOf, type CellTarget } from './launch-spec.js';
import { adoptRuns } from './supervisor-adopt-jobs.js';
import { infraBreakerOf } from './executors/infra.js';
import { markCell, readClaimOf } from './launch-checkpoint.js';
import { provenDone, hasOwnOutput, outputBlocked } from './launch-proof.js';
import { createAutopilot } from './supervisor-autopilot-loop.js';
import { previewCommand, runCell, type AdoptedRun, type CellCore, type Flight } from './supervisor-cell.js';
import { breakerMessage } from './supervisor-words.js';
import { retryStopOf } from './retry-stop.js';
import { continueFor, liveAgentView } from './supervisor-agent.js';
import { budgetReasonOf } from './costs.js';
import { createSupervisorJournal } from './supervisor-journal.js';
import { pathTakenBy, takenWhy, writersByPath } from './writers.js';
import { SupervisorError, type RunResult, type Supervisor, type SupervisorEvent, type SupervisorOptions, type SupervisorSnapshot } from './supervisor-types.js';

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

// eslint-disable-next-line max-lines-per-function -- one closure over the supervisor's runs, journal and breakers; issue 9 item 2's adapter and executor seams split it
export function createSupervisor(opts: SupervisorOptions): Supervisor {
  const root = resolve(opts.root);
  const config = opts.config;
  const now = opts.now ?? Date.now;
  const rand = opts.rand ?? Math.random;
  const redo = opts.redoHalfProducts ?? true;
  // --readonly: the journal is read (the Health view shows its history) but the driver lock
  // is not even taken, and every action is refused.
  const role = createRole({ root, config, readonly: !!opts.readonly, now, ledger: () => ledger(), append: (e) => append(e), emit: (e) => emit(e) });
  const observed = driverView();

  const isDriver = (): boolean => role.isDriver;
  const warnings: string[] = [];
  const listeners = new Set<(e: SupervisorEvent) => void>();
  const flights = new Map<string, Flight>();
  const running = new Map<string, Promise<RunResult>>();
  const operatorHeld = new Set<string>();
  let reserved = 0;
  let closed = false;
  let stopped = false;
  let checkpointQueue: Promise<void> = Promise.resolve();

  const emit = (raw: SupervisorEvent): void => {
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
  const journal = createSupervisorJournal({
    root,
    now,
    ledgerCfg: { breaker: config.breaker, limits: config.limits },
    emit,
    onCooldownEnd: () => void pilot.tick(),
    isClosed: () => closed,
  });
  const { append, ledger, noteBreakers } = journal;

  const refuse = (what: string): void => {
    if (!isDriver()) throw new SupervisorError(`read-only: cannot ${what}; ${role.lock.reason ?? 'another checkroom drives this workspace'}`);
    if (closed) throw new SupervisorError(`cannot ${what}: this supervisor is closed`);
    if (!existsSync(root)) throw new SupervisorError(`cannot ${what}: the workspace directory ${root} is gone (deleted or moved)`);
  };

  const mark = (unit: string, step: string, claim: Claim): Promise<void> => {
    // One writer at a time: two runs ending together must not lose each other's cell.
    const next = checkpointQueue.then(async () => {
      const r = await markCell(root, config, unit, step, claim, now());
      if (r.rebuilt) emit({ type: 'notice', message: sanitizeLine(r.rebuilt) });
    });
    checkpointQueue = next.catch(() => undefined);
    return next;
  };

  const budgetLeft = (l: Ledger): number => config.limits.maxLaunches - l.launchesThisSession - reserved;

  const core: CellCore = {
    root,
    config,
    now,
    rand,
    append,
    ledger,
    emit,
    mark,
    reserveLaunch() {
      const l = ledger();
      if (budgetLeft(l) <= 0) return `launch budget of this session used (${l.launchesThisSession} of ${config.limits.maxLaunches}, limits.max_launches)`;
      reserved++;
      return null;
    },
    releaseLaunch() {
      reserved = Math.max(0, reserved - 1);
    },
    retryStop() {
      const l = ledger();
      return retryStopOf(l, config.limits, { closed, budgetLeft: budgetLeft(l), spent: budgetReasonOf(l.costs, config.limits.budget) });
    },
    waitForBreaker: journal.waitForBreaker,
    pauseFor: (reason) => pilot.pauseFor(reason),
  };

  // Issue 12: runs of an earlier checkroom that went to a cluster are adopted through their executor.
  const adoption = (): AdoptDeps => ({ core, flights, running, tick: () => void tick(), adoptJobs: (runs) => adoptRuns(root, config, runs, { now, append, emit, fly }) });
  const init = async (): Promise<void> => {
    warnings.push(...(await journal.load()));
    if (role.isDriver) await role.drive(adoption());
    else observed.poll(ledger());
    journal.seeBreakers();
    noteBreakers();
  };
  const ready = init();
  ready.catch(() => undefined);

  const pilot = createAutopilot({
    root,
    config,
    redoHalfProducts: redo,
    get isDriver() {
      return role.isDriver;
    },
    ready,
    now,
    ledger,
    append,
    emit,
    isClosed: () => closed,
    flights,
    held: operatorHeld,
    budgetLeft,
    launch: (unit, step, o) => launch(unit, step, o),
  });
  const tick = pilot.tick;

  const launch = async (unit: string, step: string, o: { reason?: string; reset?: boolean; continue?: boolean } = {}): Promise<RunResult> => {
    await ready;
    refuse('launch');
    const t = targetOf(root, config, unit, step);
    const key = cellKey(unit, step);
    if (flights.has(key)) throw new SupervisorError(`${unit} ${step} is already running or waiting for its next attempt`);
    const blocked = outputBlocked(t);
    if (blocked) throw new SupervisorError(`${unit} ${step} is not launched: ${blocked}`);
    let l = ledger();
    if (l.cells[key]?.state === 'needs_human') {
      if (!o.reset) throw new SupervisorError(`${unit} ${step} was escalated (${l.cells[key]!.reason ?? 'needs a human'}); reset the cell to count anew, then launch`);
      await append({ type: 'decision', at: now(), kind: 'reset_cell', unit, step, note: 'relaunched by the operator' });
      l = ledger();
    }
    if (budgetLeft(l) <= 0) throw new SupervisorError(`launch budget of this session used (${l.launchesThisSession} of ${config.limits.maxLaunches}); raise limits.max_launches or start a new session`);
    const br = l.agents[t.agent.name];
    if (br && !br.canLaunch) throw new SupervisorError(breakerMessage(br, config.breaker) + (br.view.state === 'held' ? '; release it to launch' : '; reset it to launch now'));
    // One writer per output path (issue 8 item 1): checked with no await before the flight is
    // registered, so two launches of cells sharing a file cannot both pass.
    const taken = pathTakenBy(config.pipeline, writersByPath(config.pipeline, [...flights.values(), ...ledger().liveRuns]), unit, step);
    if (taken) throw new SupervisorError(`${unit} ${step} is not launched: ${takenWhy(config.pipeline, taken, unit, step)}; wait until it stops`);
    if (o.continue && !continueFor(ledger(), t, unit, true)) throw new SupervisorError(`${unit} ${step} has no interrupted agent session to continue (adapter claude-code, a session id journalled)`);
    return fly(unit, step, t, null, o.continue === true);
  };

  const fly = (unit: string, step: string, t: CellTarget, adopted: AdoptedRun | null, continueAsked = false): Promise<RunResult> => {
    const key = cellKey(unit, step);
    const flight: Flight = { unit, step, agent: t.agent.name, handle: adopted?.handle ?? null, runId: adopted?.runId ?? null, attempt: adopted?.attempt ?? 0, logPath: adopted?.logPath ?? null, startedAt: adopted?.startedAt ?? now(), cancelled: false, wait: null, prevClaim: null, continueAsked };
    flights.set(key, flight);
    operatorHeld.delete(key);
    const p = (async () => {
      flight.prevClaim = await readClaimOf(root, config, unit, step).catch(() => null);
      const r = await runCell(core, flight, t, adopted);
      // A job cancelled outside checkroom (scancel) is someone's decision too: autopilot
      // leaves the cell alone until it is launched again (issue 12).
      if (r.outcome === 'cancelled') operatorHeld.add(key);
      return r;
    })().finally(() => {
      flights.delete(key);
      running.delete(key);
      void tick();
    });
    running.set(key, p);
    return p;
  };

  const cancel = (id: string): boolean => {
    refuse('cancel');
    for (const [key, f] of flights) {
      if (key !== id && f.runId !== id) continue;
      f.cancelled = true;
      operatorHeld.add(key);
      f.handle?.cancel();
      f.wait?.resolve(false);
      return true;
    }
    return false;
  };

  const breakerAction = async (agent: string, event: 'reset' | 'hold' | 'release'): Promise<void> => {
    await ready;
    refuse(`${event} a breaker`);
    // Issue 12: an executor's infra breaker ("slurm:infra") is the operator's to reset too.
    const infra = Object.values(config.agents).some((a) => infraBreakerOf(a.executor) === agent);
    if (!config.agents[agent] && !infra) throw new SupervisorError(`no agent '${agent}' in checkroom.yaml`);
    await append({ type: 'breaker', at: now(), agent, event });
    void tick();
  };

  const resetCell = async (unit: string, step: string): Promise<void> => {
    await ready;
    refuse('reset a cell');
    const t = targetOf(root, config, unit, step);
    const key = cellKey(unit, step);
    if (flights.has(key)) throw new SupervisorError(`${unit} ${step} is in flight; cancel it first`);
    await append({ type: 'decision', at: now(), kind: 'reset_cell', unit, step, note: 'reset by the operator' });
    operatorHeld.delete(key);
    // The checkpoint follows the disk again: ✅ proven, ⏳ a half-product, — nothing.
    await mark(unit, step, provenDone(root, config.pipeline, t, unit) ? 'done' : hasOwnOutput(t) ? 'in_progress' : 'not_started');
    void tick();
  };

  const snapshot = (): SupervisorSnapshot => {
    const l = ledger();
    const autopilot = pilot.view();
    const own = [...flights.values()]
      .filter((f) => f.handle && f.runId)
      .map((f) => ({ runId: f.runId!, unit: f.unit, step: f.step, agent: f.agent, attempt: f.attempt, pid: f.handle!.pid, logPath: f.logPath!, startedAt: f.startedAt, ...liveAgentView(f.watch ?? null, f.handle!.lines()), ...(f.adopted ? { origin: 'adopted' as const } : {}), job: f.handle!.job ?? null, why: f.handle!.why?.() ?? null }));
    const ownWaiting = [...flights.values()].filter((f) => f.wait).map((f) => ({ unit: f.unit, step: f.step, agent: f.agent, retryAt: f.wait!.retryAt, reason: f.wait!.reason }));
    // An observer sees the driver's runs and countdowns, replayed from the driver's journal.
    const mine = new Set([...flights.values()].flatMap((f) => (f.runId ? [f.runId] : [])));
    const keys = new Set(flights.keys());
    return {
      role: role.lock.role,
      holder: role.lock.holder ?? null,
      readonlyReason: isDriver() ? null : (role.lock.reason ?? 'read-only'),
      ledger: l,
      runs: isDriver() ? own : [...own, ...observed.runs(l, mine)],
      waiting: isDriver() ? ownWaiting : [...ownWaiting, ...observed.waiting(l, keys)],
      autopilot: { on: autopilot.on, paused: autopilot.paused || l.paused, reason: autopilot.paused ? autopilot.reason : (l.pausedReason ?? autopilot.reason) },
      launchesThisSession: l.launchesThisSession,
      limits: { maxLaunches: config.limits.maxLaunches, maxConsecutiveFailures: config.limits.maxConsecutiveFailures, consecutiveFailures: l.consecutiveFailures, breakerThreshold: config.breaker.threshold },
      warnings: [...warnings],
      notices: [...role.notices],
    };
  };

  return {
    ready,
    root,
    launch,
    cancel,
    async setAutopilot(on, o = {}) {
      await ready;
      refuse(on ? 'turn autopilot on' : 'turn autopilot off');
      await pilot.set(on, o.maxLaunches ?? null);
    },
    tick,
    prefer: (cells) => pilot.prefer(cells.map((c) => cellKey(c.unit, c.step))),
    resetBreaker: (agent) => breakerAction(agent, 'reset'),
    holdBreaker: (agent) => breakerAction(agent, 'hold'),
    releaseBreaker: (agent) => breakerAction(agent, 'release'),
    resetCell,
    snapshot,
    subscribe(fn) {
      listeners.add(fn);
      return () => void listeners.delete(fn);
    },
    describeCommand: (unit, step, o = {}) => previewCommand(root, ledger(), targetOf(root, config, unit, step), unit, step, o.continue === true),
    continuable: (unit, step) => continueFor(ledger(), targetOf(root, config, unit, step), unit, true),
    async note(e) {
      await ready;
      refuse('write the journal');
      await append(e);
    },
    async refresh() {
      if (isDriver()) return;
      await journal.load();
      if (!closed) await role.takeOver(adoption());
      if (!role.isDriver) observed.poll(ledger());
      noteBreakers();
    },
    async close(o = {}) {
      if (closed) return;
      await ready.catch(() => undefined);
      await pilot.close();
      if (o.leave && isDriver()) {
        closed = true;
        journal.stop();
        return journalStop({ reason: o.reason ?? 'quit', left: await leaveFlights(flights, running) });
      }
      if (o.cancel) for (const key of [...flights.keys()]) cancel(key);
      closed = true;
      journal.stop();
      // No new attempt starts after close: cut backoff waits short (the cell ends ❌).
      for (const f of flights.values()) f.wait?.resolve(true);
      // An adopted run was not started here: not waited for, left to the next driver.
      for (const [key, f] of flights)
        if (f.adopted && f.handle?.leave) {
          void f.handle.leave();
          running.delete(key);
        }
      await Promise.allSettled([...running.values()]);
      await journalStop({ reason: o.reason ?? 'quit' });
    },
    closeNow(reason) {
      closed = true;
      journal.stop();
      if (isDriver() && !stopped) appendJournalNow(root, { type: 'session', at: now(), kind: 'stop', pid: process.pid, reason });
      stopped = true;
      role.lock.release();
    },
  };

  // The session stop is journaled once, then the lock goes (a successor may start at once).
  async function journalStop(d: { reason: string; left?: LeftRunning[] }): Promise<void> {
    if (isDriver() && !stopped) {
      stopped = true;
      await appendJournal(root, { type: 'session', at: now(), kind: 'stop', pid: process.pid, ...d }).catch(() => undefined);
    }
    role.lock.release();
  }
}

/** createSupervisor, then wait until it is ready (journal read, dead runs reaped). */
export const openSupervisor = async (opts: SupervisorOptions): Promise<Supervisor> => {
  const s = createSupervisor(opts);
  await s.ready;
  return s;
};
