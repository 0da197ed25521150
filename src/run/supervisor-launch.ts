import { cellKey } from '../types.js';
import { targetOf, type CellTarget } from './launch-spec.js';
import { readClaimOf } from './launch-checkpoint.js';
import { hasOwnOutput, outputBlocked, provenDone } from './launch-proof.js';
import { infraBreakerOf } from './executors/infra.js';
import { runCell } from './supervisor-cell.js';
import type { AdoptedRun, Flight } from './cell-core.js';
import { continueFor } from './supervisor-agent.js';
import { budgetRefusal } from './budget.js';
import { passBreaker, releaseProbes } from './breaker-gate.js';
import { pathTakenBy, takenWhy, writersByPath } from './writers.js';
import { heldOutputs } from '../holders/held-outputs.js';
import type { SupervisorCtx } from './supervisor-context.js';
import { SupervisorError, type RunResult } from './supervisor-types.js';
import { quotaWaitOf, quotaWords } from './quota-gate.js';

// The operator's actions on cells and breakers (DOMAIN.md sections 8 and 9), as functions of
// the supervisor's context: each refuses what this instance may not do, says exactly why,
// and journals what it did. Split out of createSupervisor (issue 9 item 3).

export interface LaunchOptions {
  reason?: string;
  reset?: boolean;
  continue?: boolean;
  /** Go past a spent budget: the operator's explicit word (`checkroom run --over-budget`), journalled. */
  overBudget?: boolean;
}

/** Put a cell in flight: runCell carries it (an adopted run is re-attached as its first attempt). */
export function flyCell(x: SupervisorCtx, unit: string, step: string, t: CellTarget, adopted: AdoptedRun | null, continueAsked = false, overBudget = false): Promise<RunResult> {
  const key = cellKey(unit, step);
  const flight: Flight = {
    unit,
    step,
    agent: t.agent.name,
    handle: adopted?.handle ?? null,
    // An earlier session's job: a close leaves it to the next driver (issue 17 matrix, leave).
    adopted: adopted !== null,
    runId: adopted?.runId ?? null,
    attempt: adopted?.attempt ?? 0,
    logPath: adopted?.logPath ?? null,
    startedAt: adopted?.startedAt ?? x.now(),
    cancelled: false,
    wait: null,
    prevClaim: null,
    continueAsked,
    overBudget,
  };
  x.flights.set(key, flight);
  const p = (async () => {
    flight.prevClaim = await readClaimOf(x.root, x.config, unit, step).catch(() => null);
    // A job cancelled outside checkroom (scancel) is someone's decision too: its CANCELLED
    // exit holds the cell in the ledger until it is launched again (issue 12, issue 17 item 3).
    return runCell(x.core, flight, t, adopted);
  })().finally(() => {
    releaseProbes(x.probes, key);
    x.flights.delete(key);
    x.running.delete(key);
    void x.pilot.tick();
  });
  x.running.set(key, p);
  return p;
}

export async function launchCell(x: SupervisorCtx, unit: string, step: string, o: LaunchOptions = {}): Promise<RunResult> {
  await x.ready;
  x.refuse('launch');
  const { config } = x;
  const t = targetOf(x.root, config, unit, step);
  const key = cellKey(unit, step);
  if (x.flights.has(key)) throw new SupervisorError(`${unit} ${step} is already running or waiting for its next attempt`);
  const blocked = outputBlocked(t);
  if (blocked) throw new SupervisorError(`${unit} ${step} is not launched: ${blocked}`);
  let l = x.journal.ledger();
  if (l.cells[key]?.state === 'needs_human') {
    if (!o.reset)
      throw new SupervisorError(`${unit} ${step} was escalated (${l.cells[key]!.reason ?? 'needs a human'}); reset the cell to count anew, then launch`);
    await x.journal.append({ type: 'decision', at: x.now(), kind: 'reset_cell', unit, step, note: 'relaunched by the operator' });
    l = x.journal.ledger();
  }
  // Issue 17 item 4: the one budget decision, for keys, autopilot, `run` and the socket alike.
  const spent = x.budgetStop(l);
  if (spent && !o.overBudget) throw new SupervisorError(budgetRefusal(spent));
  // The account's quota (docs/quota.md): no override: the API refuses before the reset, and
  // the wait ends by itself (autopilot, or a cell already waiting, goes on at the reset).
  const quota = quotaWaitOf(l.quotaWaits, t.agent, x.now());
  if (quota) throw new SupervisorError(`${unit} ${step} is not launched: ${quotaWords(quota, x.now())}; launch it after the reset`);
  // One writer per output path (issue 8 item 1): checked with no await before the flight is
  // registered, so two launches of cells sharing a file cannot both pass.
  const taken = pathTakenBy(config.pipeline, writersByPath(config.pipeline, [...x.flights.values(), ...x.journal.ledger().liveRuns]), unit, step);
  if (taken) throw new SupervisorError(`${unit} ${step} is not launched: ${takenWhy(config.pipeline, taken, unit, step)}; wait until it stops`);
  // …and a process checkroom did not launch may hold it too (issue 17 item 1): the attempt would move the file from under it.
  const held = heldOutputs(x.root, [t.outputRel], new Set(x.journal.ledger().liveRuns.flatMap((r) => (r.pid ? [r.pid] : [])))).get(t.outputRel);
  if (held) throw new SupervisorError(`${unit} ${step} is not launched: ${held}`);
  if (o.continue && !continueFor(x.journal.ledger(), t, unit, true))
    throw new SupervisorError(`${unit} ${step} has no interrupted agent session to continue (adapter claude-code, a session id journalled)`);
  // Last, with no await before flyCell: a half-open breaker's one probe is claimed here
  // (breaker-gate.ts, issue 17), so launches asked for together cannot all be the probe.
  for (const name of [t.agent.name, infraBreakerOf(t.agent.executor)]) {
    if (!name) continue;
    const g = passBreaker(x.journal.ledger().agents[name], x.probes, key, config.breaker);
    if (!g.go) {
      releaseProbes(x.probes, key);
      throw new SupervisorError(g.reason);
    }
  }
  const onHold = x.journal.ledger().cells[key]?.hold != null;
  const run = flyCell(x, unit, step, t, null, o.continue === true, spent !== null);
  // Journalled after the flight is registered (the writer check above needs no await before
  // it) and before its launch event, which waits for the claim read at least.
  if (spent) await x.journal.append({ type: 'decision', at: x.now(), kind: 'over_budget', unit, step, note: `launched past a spent budget: ${spent.reason}` });
  // Launching a held cell by hand is the release (issue 17 item 3), journalled the same way.
  if (onHold) await x.journal.append({ type: 'decision', at: x.now(), kind: 'release', unit, step, note: 'launched by the operator' });
  return run;
}

/**
 * Cancel by run id or by cell key. The operator's cancel holds the cell from autopilot and
 * `run --next`; a shutdown's cancel (a signal to `checkroom run`, quit with cancel) does not:
 * a cron job's timeout must not hold its cells forever.
 */
export function cancelCell(x: SupervisorCtx, id: string, by: 'operator' | 'shutdown' = 'operator'): boolean {
  x.refuse('cancel');
  for (const [key, f] of x.flights) {
    if (key !== id && f.runId !== id) continue;
    f.cancelled = true;
    f.cancelledBy = by;
    // Journalled, so the hold outlives this session (issue 17 item 3); a running attempt's
    // CANCELLED exit says the same, a retry cancelled in its backoff has only this.
    if (by === 'operator') void x.journal.append({ type: 'decision', at: x.now(), kind: 'hold', unit: f.unit, step: f.step, note: 'cancelled by the operator' }).catch(() => undefined);
    f.handle?.cancel();
    f.wait?.resolve(false);
    return true;
  }
  return false;
}

export async function breakerAction(x: SupervisorCtx, agent: string, event: 'reset' | 'hold' | 'release'): Promise<void> {
  await x.ready;
  x.refuse(`${event} a breaker`);
  // Issue 12: an executor's infra breaker ("slurm:infra") is the operator's to reset too.
  const infra = Object.values(x.config.agents).some((a) => infraBreakerOf(a.executor) === agent);
  if (!x.config.agents[agent] && !infra) throw new SupervisorError(`no agent '${agent}' in checkroom.yaml`);
  await x.journal.append({ type: 'breaker', at: x.now(), agent, event });
  void x.pilot.tick();
}

export async function resetCell(x: SupervisorCtx, unit: string, step: string): Promise<void> {
  await x.ready;
  x.refuse('reset a cell');
  const t = targetOf(x.root, x.config, unit, step);
  const key = cellKey(unit, step);
  if (x.flights.has(key)) throw new SupervisorError(`${unit} ${step} is in flight; cancel it first`);
  await x.journal.append({ type: 'decision', at: x.now(), kind: 'reset_cell', unit, step, note: 'reset by the operator' });
  // The checkpoint follows the disk again: ✅ proven, ⏳ a half-product, — nothing.
  await x.mark(unit, step, provenDone(x.root, x.config.pipeline, t, unit) ? 'done' : hasOwnOutput(t) ? 'in_progress' : 'not_started');
  void x.pilot.tick();
}
