import { resourcesOf } from '../../pipeline/resources.js';
import { attemptResources, attemptResourcesWords } from '../policy/memory-ladder.js';
import { cellKey } from '../../types.js';
import { sanitizeLine } from '../../text/sanitize.js';
import { attemptLabel } from '../policy/policy.js';
import type { Ledger } from '../journal/ledger.js';
import type { CellTarget } from '../attempt/launch-spec.js';
import { buildCommand } from '../attempt/launch-spec.js';
import { infraBreakerOf } from '../executors/infra.js';
import { describeArgv } from '../attempt/placeholders.js';
import { nextMove, stopAfterBackoff, stopAfterBreaker, stopEffect, stopWords, type Move, type StopReason } from '../attempt/cell-move.js';
import { lastBackupOf, nextAttempt, runAttempt, type CellRun } from './attempt.js';
import { sleepFor, type AdoptedRun, type Flight } from '../attempt/cell-core.js';
import type { CommandPreview, RunResult } from './types.js';
import { continueFor } from './agent.js';
import { quotaWaitOf, quotaWords } from '../quota/gate.js';
import type { AutopilotPort, CellCore, Emitter, JournalPort, LaunchGate, Marker } from './ports.js';

export { sleepFor, lastBackupOf };
export type { AdoptedRun, CellCore, Flight };

// One cell, with its retries (docs/domain.md, Failure classes and their caps; and Handling
// agent faults): one attempt (supervisor-attempt.ts), then the pure nextMove (cell-move.ts)
// says done, retry after a jittered backoff, or stop with a reason that is a value; this loop
// carries the move out. Intermediate failures are `retrying` in the ledger, not alarms; the
// final failure is surfaced once. Nothing here launches on an error path: an internal error
// ends the cell.

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** The command the cell's next attempt would run, as runCell builds it (before any backup it makes). */
export const previewCommand = (root: string, l: Ledger, t: CellTarget, unit: string, step: string, asContinue = false): CommandPreview => {
  const key = cellKey(unit, step);
  const attempt = nextAttempt(l, key);
  const cell = l.cells[key];
  const resume = continueFor(l, t, unit, asContinue);
  const cmd = buildCommand(root, unit, t, {
    attempt,
    backup: lastBackupOf(root, l, unit, step),
    lastError: attempt > 1 && cell ? cell.lastError : '',
    resume,
  });
  const resources = attemptResourcesWords(attemptResources(t.agent.resources, t.step.resources, cell?.attempts ?? []), t.agent.executor);
  return { agent: t.agent.name, argv: cmd.argv, text: describeArgv(cmd.argv), cwd: cmd.cwd, resources };
};

/** One cell's run; `C` narrows the ports a helper below may use (supervisor-ports.ts). */
interface Cell<C = CellCore> {
  core: C;
  flight: Flight;
  t: CellTarget;
  run: CellRun;
}

const resultOf = (c: Cell<unknown>, outcome: RunResult['outcome'], reason: string): RunResult => ({
  unit: c.flight.unit,
  step: c.flight.step,
  outcome,
  class: c.run.lastClass,
  attempts: c.run.launched,
  reason,
  logPath: c.flight.logPath,
});

/** An operator cancel is not a fault (docs/domain.md, Handling agent faults): the cell goes back to what it claimed, or to
 *  ❌ when earlier attempts of this call failed, so the failure is not forgotten. */
async function cancelled(c: Cell<Marker & Emitter>): Promise<RunResult> {
  const { core, flight, run } = c;
  const { unit, step } = flight;
  if (run.launched > 1 || (run.lastClass !== null && run.lastClass !== 'CANCELLED')) await core.mark(unit, step, 'failed');
  else if (flight.prevClaim !== null && flight.prevClaim !== 'in_progress') await core.mark(unit, step, flight.prevClaim);
  core.emit({ type: 'cancelled', unit, step, message: `${unit} ${step}: cancelled by the operator` });
  return resultOf(c, 'cancelled', 'cancelled by the operator');
}

/** Carry a stop out: the claim, the escalation journalled, autopilot paused, the failure surfaced once. */
async function stopCell(c: Cell<JournalPort & Emitter & Marker & Pick<AutopilotPort, 'pauseFor'>>, s: StopReason): Promise<RunResult> {
  const { core, flight, run } = c;
  const { unit, step } = flight;
  const effect = stopEffect(s);
  if (effect.claim === 'cancelled') return cancelled(c);
  const reason = stopWords(s);
  // No budget before the first launch: nothing ran, the cell keeps its claim and no alarm is raised.
  if (s.kind === 'launch_budget' && run.launched === 0) return resultOf(c, 'failed', reason);
  if (effect.reportAs) run.lastClass = effect.reportAs;
  if (effect.escalate) await core.append({ type: 'escalate', at: core.now(), unit, step, class: effect.escalate, reason });
  // The attempt that used the cap says so ("attempt 1 of 1"), not a bare "attempt 1".
  if (s.kind === 'escalated' && s.maxAttempts) run.maxAttempts = s.maxAttempts;
  if (s.kind === 'retries_stopped') {
    if (s.maxAttempts !== null) run.maxAttempts = s.maxAttempts;
    if (s.pauses) await core.pauseFor(s.stop.reason);
  }
  await core.mark(unit, step, effect.claim);
  const escalated = effect.claim === 'needs_human';
  // Words, not glyphs: this is shown under --ascii too (the run CLI, the control room's log).
  const what = escalated ? 'escalated to a human (checkpoint.md: needs a human)' : 'failed (checkpoint.md: failed; retry when ready)';
  const label = run.maxAttempts ? attemptLabel(flight.attempt, Math.max(run.maxAttempts, flight.attempt)) : `attempt ${flight.attempt}`;
  const cls = run.lastClass ?? 'UNKNOWN';
  const log = flight.logPath ? `; log: ${flight.logPath}` : '';
  core.emit({
    type: 'failed',
    unit,
    step,
    class: cls,
    escalated,
    reason,
    logPath: flight.logPath,
    message: sanitizeLine(`${unit} ${step}: ${label} failed (${cls}); ${what}: ${reason}${log}`),
  });
  return resultOf(c, escalated ? 'escalated' : 'failed', reason);
}

/** Journal and announce the retry, wait out its backoff, then its breakers; a stop when one says no. */
async function awaitRetry(
  c: Cell<JournalPort & Emitter & Pick<LaunchGate, 'retryStop' | 'waitForBreaker'>>,
  move: Extract<Move, { kind: 'retry' }>,
  attempt: number,
  cls: string,
): Promise<StopReason | null> {
  const { core, flight, t } = c;
  const { unit, step } = flight;
  c.run.maxAttempts = move.maxAttempts;
  const { delayMs } = move;
  await core.append({ type: 'retry_scheduled', at: core.now(), unit, step, attempt: move.attempt, delayMs, reason: move.reason });
  const message = `${unit} ${step}: ${attemptLabel(attempt, move.maxAttempts)} failed (${cls}), retrying in ${seconds(delayMs)}${move.note ? `; ${move.note}` : ''}`;
  core.emit({ type: 'retry', unit, step, attempt: move.attempt, maxAttempts: move.maxAttempts, class: move.class, delayMs, message });
  const woke = await sleepFor(flight, delayMs, core.now() + delayMs, move.reason);
  const late = stopAfterBackoff(woke, woke ? core.retryStop(flight) : null);
  if (late) return late;
  // A cluster that keeps failing has its own breaker; wait for it too (docs/scale-out.md).
  for (const agent of [t.agent.name, infraBreakerOf(t.agent.executor)]) {
    if (!agent) continue;
    const blocked = await core.waitForBreaker(flight, agent);
    const stop = stopAfterBreaker(flight.cancelled, agent, blocked);
    if (stop) return stop;
  }
  return null;
}

/**
 * No launch on an account before its quota's reset (docs/quota.md): wait it out, however it
 * moves meanwhile, and say so once per deadline. False when cancelled during the wait.
 */
async function awaitAccount(c: Cell): Promise<boolean> {
  const { core, flight, t } = c;
  let said = 0;
  for (;;) {
    const w = quotaWaitOf(core.ledger().quotaWaits, t.agent, core.now());
    if (!w) return true;
    const words = quotaWords(w, core.now());
    if (w.until !== said) core.emit({ type: 'notice', message: sanitizeLine(`${flight.unit} ${flight.step}: ${words}; not counted as an attempt`) });
    said = w.until;
    if (!(await sleepFor(flight, w.until - core.now(), w.until, words))) return false;
  }
}

/** What comes of one attempt: the result when the cell ends, null when it retries. */
async function attemptOnce(c: Cell): Promise<RunResult | null> {
  const { core, flight, t, run } = c;
  // An adopted run is already running: a cancel must reach it (and its exit be journalled),
  // not end the cell before the handle is even looked at.
  if (flight.cancelled && !run.adopted) return cancelled(c);
  if (!run.adopted && !(await awaitAccount(c))) return cancelled(c);
  const end = await runAttempt(core, flight, t, run);
  if (end.kind === 'not_started') return stopCell(c, end.stop);
  // The account's quota: the next attempt waits for its reset above and continues the session.
  if (end.quota && end.memoryLoss === null) return null;
  const history = core.ledger().cells[cellKey(flight.unit, flight.step)]?.attempts ?? [];
  const move = nextMove({
    cls: end.cls,
    memoryLoss: end.memoryLoss,
    history,
    limits: core.config.limits,
    resources: resourcesOf(t.agent.resources, t.step.resources),
    rand: () => core.rand(),
    retryDelayMs: end.retryDelayMs,
    retryStop: core.retryStop(flight),
  });
  if (move.kind === 'stop') return stopCell(c, move.reason);
  if (move.kind === 'done') {
    const { unit, step } = flight;
    await core.mark(unit, step, 'done');
    const proof = t.marker ? `marker ${t.marker} is the last line` : 'entry written';
    core.emit({ type: 'done', unit, step, runId: end.runId, attempt: end.attempt, message: `${unit} ${step}: done — ${proof} (${end.label})` });
    return resultOf(c, 'done', 'the marker proves it');
  }
  const stop = await awaitRetry(c, move, end.attempt, end.cls);
  return stop ? stopCell(c, stop) : null;
}

/** Error path: stop this cell; never relaunch from here (docs/domain.md, Handling agent faults: the death spiral). */
async function internalError(c: Cell<Marker & Emitter>, err: unknown): Promise<RunResult> {
  const { core, flight, run } = c;
  const { unit, step } = flight;
  const message = sanitizeLine((err as Error).message ?? String(err));
  if (flight.handle) {
    flight.handle.cancel();
    await flight.handle.result.catch(() => undefined);
    flight.handle = null;
  }
  try {
    // Nothing ran yet (the backup before the first attempt failed, say): the agent did not
    // fail, so the cell keeps what it claimed; after an attempt it is ❌.
    if (run.launched > 0) await core.mark(unit, step, 'failed');
    else if (flight.prevClaim !== null) await core.mark(unit, step, flight.prevClaim);
  } catch {
    // the checkpoint is what failed, perhaps; the event below still tells the operator
  }
  core.emit({
    type: 'failed',
    unit,
    step,
    class: run.lastClass ?? 'UNKNOWN',
    escalated: false,
    reason: message,
    logPath: flight.logPath,
    message: `${unit} ${step}: stopped by an internal error: ${message}`,
  });
  return resultOf(c, 'failed', message);
}

/** Run a cell's attempts until it is done, stops or is cancelled; `adoptedRun` is re-attached as the first. */
export async function runCell(core: CellCore, flight: Flight, t: CellTarget, adoptedRun: AdoptedRun | null = null): Promise<RunResult> {
  const c: Cell = { core, flight, t, run: { launched: 0, lastClass: null, maxAttempts: null, adopted: adoptedRun } };
  try {
    for (;;) {
      const r = await attemptOnce(c);
      if (r) return r;
    }
  } catch (err) {
    return internalError(c, err);
  }
}
