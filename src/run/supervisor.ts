import { resolve } from 'node:path';
import type { Claim } from '../types.js';
import { cellKey } from '../types.js';
import { loadWorkspace } from '../workspace.js';
import { sanitizeLine } from '../sanitize.js';
import { appendJournal, readJournal, type JournalEvent, type NewJournalEvent } from './journal.js';
import { replayJournal, type Ledger } from './ledger.js';
import { acquireDriverLock, type DriverLock } from './lock.js';
import { reapDeadRuns } from './supervisor-restart.js';
import { describeArgv } from './placeholders.js';
import { buildCommand, lastErrorLine, targetOf } from './launch-spec.js';
import { markCell, readClaimOf } from './launch-checkpoint.js';
import { provenDone, hasOwnOutput } from './launch-proof.js';
import { pickLaunches } from './supervisor-autopilot.js';
import { lastBackupOf, runCell, sleepFor, type CellCore, type Flight } from './supervisor-cell.js';
import { breakerMessage } from './supervisor-words.js';
import { SupervisorError, type CommandPreview, type RunResult, type SupervisorEvent, type SupervisorOptions, type SupervisorSnapshot } from './supervisor-types.js';

export * from './supervisor-types.js';

// The runner behind the control room and `checkroom run` (DOMAIN.md sections 8 and 9). The
// journal is the only source of truth: every count and breaker state shown is replayed from
// it, so a restart after kill -9 shows the same. One driver per workspace (driver.lock); a
// second instance is read-only and refuses every action that launches or changes state.
//
// close(): stops autopilot and waits for the runs in flight (with their retries) to end;
// it cancels nothing unless asked (`close({ cancel: true })`). Runs are never orphaned on
// purpose — a checkroom killed outright leaves them to the next instance, which reaps them.

export interface Supervisor {
  /** Resolves once the journal is read and runs of a dead predecessor are reaped. */
  readonly ready: Promise<void>;
  readonly root: string;
  launch(unit: string, step: string, opts?: { reason?: string; reset?: boolean }): Promise<RunResult>;
  /** Cancel by run id or by cell ("ch05/r2"). A cancelled cell is left alone by autopilot until launched or reset. */
  cancel(runIdOrCell: string): boolean;
  setAutopilot(on: boolean, opts?: { maxLaunches?: number }): Promise<void>;
  /** Look at the plan once and start what autopilot may start. */
  tick(): Promise<void>;
  resetBreaker(agent: string): Promise<void>;
  holdBreaker(agent: string): Promise<void>;
  releaseBreaker(agent: string): Promise<void>;
  /** Forget a cell's attempts and escalation (a human decided); the checkpoint cell follows the disk. */
  resetCell(unit: string, step: string): Promise<void>;
  snapshot(): SupervisorSnapshot;
  subscribe(fn: (e: SupervisorEvent) => void): () => void;
  describeCommand(unit: string, step: string): CommandPreview;
  /** Record a journal decision (e.g. that the exact command was shown to the operator). */
  note(e: NewJournalEvent): Promise<void>;
  /** Read-only instances: re-read the journal the driver writes. */
  refresh(): Promise<void>;
  close(opts?: { cancel?: boolean }): Promise<void>;
}

export function createSupervisor(opts: SupervisorOptions): Supervisor {
  const root = resolve(opts.root);
  const config = opts.config;
  const now = opts.now ?? Date.now;
  const rand = opts.rand ?? Math.random;
  const redo = opts.redoHalfProducts ?? true;
  // --readonly: the journal is read (the Health view shows its history) but the driver lock
  // is not even taken, and every action is refused.
  const lock: DriverLock = opts.readonly ? { role: 'readonly', reason: 'started with --readonly: nothing is launched and nothing is written', release() {} } : acquireDriverLock(root);
  const isDriver = lock.role === 'driver';
  const ledgerCfg = { breaker: config.breaker, limits: config.limits };

  let events: JournalEvent[] = [];
  const warnings: string[] = [];
  const listeners = new Set<(e: SupervisorEvent) => void>();
  const flights = new Map<string, Flight>();
  const running = new Map<string, Promise<RunResult>>();
  const operatorHeld = new Set<string>();
  const breakerSeen = new Map<string, string>();
  const autopilot = { on: false, paused: false, reason: 'off', max: null as number | null, started: 0 };
  let reserved = 0;
  let closed = false;
  let breakerTimer: NodeJS.Timeout | null = null;
  let lastIdle: string | null = null;
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
  // Everything derives from the journal, but replaying it on every snapshot made a long
  // session O(journal) per UI flush: the replay is reused while no event was appended and
  // the clock has not moved past the same 100 ms (breaker countdowns stay exact enough).
  let memo: { events: JournalEvent[]; n: number; bucket: number; l: Ledger } | null = null;
  const ledger = (): Ledger => {
    const t = now();
    const bucket = Math.floor(t / 100);
    if (memo && memo.events === events && memo.n === events.length && memo.bucket === bucket) return memo.l;
    const l = replayJournal(events, t, ledgerCfg);
    memo = { events, n: events.length, bucket, l };
    return l;
  };
  const append = async (e: NewJournalEvent): Promise<void> => {
    events.push({ ...e, v: 1 } as JournalEvent);
    await appendJournal(root, e);
    noteBreakers();
  };

  const noteBreakers = (): void => {
    const l = ledger();
    let soonest: number | null = null;
    for (const a of Object.values(l.agents)) {
      const state = a.view.state;
      if (breakerSeen.get(a.agent) !== state) {
        if (breakerSeen.has(a.agent) || state !== 'closed') emit({ type: 'breaker', agent: a.agent, state, message: breakerMessage(a, config.breaker) });
        breakerSeen.set(a.agent, state);
      }
      if (state === 'open') soonest = Math.min(soonest ?? Infinity, a.view.remainingMs);
    }
    if (breakerTimer) clearTimeout(breakerTimer);
    breakerTimer = null;
    if (soonest !== null && !closed) {
      // Half-open happens by the clock, not by an event: look again when a cooldown ends.
      breakerTimer = setTimeout(() => {
        noteBreakers();
        void tick();
      }, soonest + 20);
      breakerTimer.unref();
    }
  };

  const refuse = (what: string): void => {
    if (!isDriver) throw new SupervisorError(`read-only: cannot ${what}; ${lock.reason ?? 'another checkroom drives this workspace'}`);
    if (closed) throw new SupervisorError(`cannot ${what}: this supervisor is closed`);
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

  const pauseFor = async (reason: string): Promise<void> => {
    if (autopilot.paused && autopilot.reason === reason) return;
    const was = autopilot.on;
    autopilot.on = false;
    autopilot.paused = true;
    autopilot.reason = reason;
    if (was) await append({ type: 'autopilot', at: now(), on: false, reason: `paused: ${reason}` });
    emit({ type: 'autopilot', on: false, paused: true, reason, message: `autopilot paused: ${reason}; a human should look, then turn autopilot on again` });
  };

  const waitForBreaker = async (flight: Flight, agent: string): Promise<string | null> => {
    for (;;) {
      if (flight.cancelled) return null;
      if (closed) return 'the supervisor closed';
      const a = ledger().agents[agent];
      if (!a || a.canLaunch) return null;
      if (a.view.state === 'held') return `breaker ${agent} is held by the operator`;
      const ms = a.view.state === 'open' ? a.view.remainingMs + 20 : 250;
      const why = a.view.state === 'open' ? `waiting for breaker ${agent} (open, ${Math.ceil(a.view.remainingMs / 1000)} s left)` : `waiting for breaker ${agent}'s probe`;
      if (!(await sleepFor(flight, ms, null, why))) return null;
      noteBreakers();
    }
  };

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
      if (closed) return 'the supervisor closed';
      const l = ledger();
      if (l.consecutiveFailures >= config.limits.maxConsecutiveFailures) {
        return `${l.consecutiveFailures} consecutive failures across agents (limit ${config.limits.maxConsecutiveFailures}, limits.max_consecutive_failures)`;
      }
      if (budgetLeft(l) <= 0) return `launch budget of this session used (${l.launchesThisSession} of ${config.limits.maxLaunches})`;
      return null;
    },
    waitForBreaker,
    pauseFor,
  };

  const init = async (): Promise<void> => {
    const read = await readJournal(root);
    events = read.events;
    warnings.push(...read.warnings);
    if (isDriver) {
      await append({ type: 'session', at: now(), kind: 'start', pid: process.pid });
      await reapDeadRuns(ledger(), config, now, append, emit);
    }
    for (const a of Object.values(ledger().agents)) breakerSeen.set(a.agent, a.view.state);
    noteBreakers();
  };
  const ready = init();
  ready.catch(() => undefined);

  const runningSet = (): Set<string> => new Set(flights.keys());

  const emitIdle = (reason: string): void => {
    if (lastIdle === reason) return;
    lastIdle = reason;
    emit({ type: 'idle', reason, message: `autopilot: nothing more to launch now — ${reason}` });
  };

  let ticking = false;
  let again = false;
  const tickOnce = async (): Promise<void> => {
    if (closed || !isDriver) return;
    if (!autopilot.on) {
      if (autopilot.paused && flights.size === 0) emitIdle(`autopilot paused: ${autopilot.reason}`);
      return;
    }
    const l = ledger();
    if (l.paused && l.pausedReason) {
      await pauseFor(l.pausedReason);
      if (flights.size === 0) emitIdle(`autopilot paused: ${l.pausedReason}`);
      return;
    }
    const maxLeft = autopilot.max === null ? Infinity : autopilot.max - autopilot.started;
    const state = await loadWorkspace(root, { config, running: runningSet() });
    if (!autopilot.on || closed) return;
    const inFlight = new Map([...flights.values()].map((f) => [cellKey(f.unit, f.step), f.agent]));
    const pick = pickLaunches({ plan: state.next, ledger: ledger(), config, inFlight, held: operatorHeld, budget: Math.max(0, Math.min(budgetLeft(ledger()), maxLeft)), redoHalfProducts: redo });
    for (const c of pick.launch) {
      autopilot.started++;
      lastIdle = null;
      launch(c.unit, c.step, { reason: `autopilot: ${c.reason}` }).catch((err: Error) => emit({ type: 'notice', message: sanitizeLine(`${c.unit} ${c.step}: not launched: ${err.message}`) }));
    }
    if (pick.launch.length > 0 || flights.size > 0) return;
    const why =
      autopilot.max !== null && maxLeft <= 0
        ? `--max ${autopilot.max} launches reached`
        : budgetLeft(ledger()) <= 0
          ? `launch budget of this session used (limits.max_launches ${config.limits.maxLaunches})`
          : pick.blocked.length > 0
            ? pick.blocked.map((b) => `${b.unit} ${b.step}: ${b.why}`).slice(0, 4).join('; ')
            : 'nothing runnable in the plan';
    emitIdle(why);
  };
  const tick = async (): Promise<void> => {
    await ready;
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
      emit({ type: 'notice', message: sanitizeLine(`autopilot: ${(err as Error).message}`) });
    } finally {
      ticking = false;
    }
  };

  const launch = async (unit: string, step: string, o: { reason?: string; reset?: boolean } = {}): Promise<RunResult> => {
    await ready;
    refuse('launch');
    const t = targetOf(root, config, unit, step);
    const key = cellKey(unit, step);
    if (flights.has(key)) throw new SupervisorError(`${unit} ${step} is already running or waiting for its next attempt`);
    let l = ledger();
    if (l.cells[key]?.state === 'needs_human') {
      if (!o.reset) throw new SupervisorError(`${unit} ${step} was escalated (${l.cells[key]!.reason ?? 'needs a human'}); reset the cell to count anew, then launch`);
      await append({ type: 'decision', at: now(), kind: 'reset_cell', unit, step, note: 'relaunched by the operator' });
      l = ledger();
    }
    if (budgetLeft(l) <= 0) throw new SupervisorError(`launch budget of this session used (${l.launchesThisSession} of ${config.limits.maxLaunches}); raise limits.max_launches or start a new session`);
    const br = l.agents[t.agent.name];
    if (br && !br.canLaunch) throw new SupervisorError(breakerMessage(br, config.breaker) + (br.view.state === 'held' ? '; release it to launch' : '; reset it to launch now'));
    const flight: Flight = { unit, step, agent: t.agent.name, handle: null, runId: null, attempt: 0, logPath: null, startedAt: now(), cancelled: false, wait: null, prevClaim: null };
    flights.set(key, flight);
    operatorHeld.delete(key);
    const p = (async () => {
      flight.prevClaim = await readClaimOf(root, config, unit, step).catch(() => null);
      return runCell(core, flight, t);
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
    if (!config.agents[agent]) throw new SupervisorError(`no agent '${agent}' in checkroom.yaml`);
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
    return {
      role: lock.role,
      holder: lock.holder ?? null,
      readonlyReason: isDriver ? null : (lock.reason ?? 'read-only'),
      ledger: l,
      runs: [...flights.values()]
        .filter((f) => f.handle && f.runId)
        .map((f) => ({ runId: f.runId!, unit: f.unit, step: f.step, agent: f.agent, attempt: f.attempt, pid: f.handle!.pid, logPath: f.logPath!, startedAt: f.startedAt, lines: f.handle!.lines() })),
      waiting: [...flights.values()].filter((f) => f.wait).map((f) => ({ unit: f.unit, step: f.step, agent: f.agent, retryAt: f.wait!.retryAt, reason: f.wait!.reason })),
      autopilot: { on: autopilot.on, paused: autopilot.paused || l.paused, reason: autopilot.paused ? autopilot.reason : (l.pausedReason ?? autopilot.reason) },
      launchesThisSession: l.launchesThisSession,
      limits: { maxLaunches: config.limits.maxLaunches, maxConsecutiveFailures: config.limits.maxConsecutiveFailures, consecutiveFailures: l.consecutiveFailures, breakerThreshold: config.breaker.threshold },
      warnings: [...warnings],
    };
  };

  const describeCommand = (unit: string, step: string): CommandPreview => {
    const t = targetOf(root, config, unit, step);
    const l = ledger();
    const key = cellKey(unit, step);
    let n = 0;
    for (const a of l.cells[key]?.attempts ?? []) n = a.class === 'SUCCESS' ? 0 : n + 1;
    const cell = l.cells[key];
    const cmd = buildCommand(root, unit, t, { attempt: n + 1, backup: lastBackupOf(root, l, unit, step), lastError: n > 0 && cell ? lastErrorLine(cell.lastErrorTail) : '' });
    return { agent: t.agent.name, argv: cmd.argv, text: describeArgv(cmd.argv), cwd: cmd.cwd };
  };

  return {
    ready,
    root,
    launch,
    cancel,
    async setAutopilot(on, o = {}) {
      await ready;
      refuse(on ? 'turn autopilot on' : 'turn autopilot off');
      autopilot.on = on;
      autopilot.paused = false;
      autopilot.reason = on ? 'on' : 'turned off by the operator';
      autopilot.max = o.maxLaunches ?? null;
      autopilot.started = 0;
      lastIdle = null;
      await append({ type: 'autopilot', at: now(), on, reason: on ? 'turned on by the operator' : 'turned off by the operator' });
      emit({ type: 'autopilot', on, paused: false, reason: autopilot.reason, message: `autopilot ${on ? 'on' : 'off'}` });
      if (on) await tick();
    },
    tick,
    resetBreaker: (agent) => breakerAction(agent, 'reset'),
    holdBreaker: (agent) => breakerAction(agent, 'hold'),
    releaseBreaker: (agent) => breakerAction(agent, 'release'),
    resetCell,
    snapshot,
    subscribe(fn) {
      listeners.add(fn);
      return () => void listeners.delete(fn);
    },
    describeCommand,
    async note(e) {
      await ready;
      refuse('write the journal');
      await append(e);
    },
    async refresh() {
      if (isDriver) return;
      const read = await readJournal(root);
      events = read.events;
      noteBreakers();
    },
    async close(o = {}) {
      if (closed) return;
      await ready.catch(() => undefined);
      if (autopilot.on && isDriver) {
        autopilot.on = false;
        await append({ type: 'autopilot', at: now(), on: false, reason: 'checkroom closed' }).catch(() => undefined);
      }
      if (o.cancel) for (const key of [...flights.keys()]) cancel(key);
      closed = true;
      if (breakerTimer) clearTimeout(breakerTimer);
      // No new attempt starts after close: cut backoff waits short (the cell ends ❌).
      for (const f of flights.values()) f.wait?.resolve(true);
      await Promise.allSettled([...running.values()]);
      if (isDriver) await appendJournal(root, { type: 'session', at: now(), kind: 'stop', pid: process.pid }).catch(() => undefined);
      lock.release();
    },
  };
}

/** createSupervisor, then wait until it is ready (journal read, dead runs reaped). */
export const openSupervisor = async (opts: SupervisorOptions): Promise<Supervisor> => {
  const s = createSupervisor(opts);
  await s.ready;
  return s;
};
