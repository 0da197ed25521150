import { cellKey } from '../../types.js';
import { targetOf, type CellTarget } from '../attempt/launch-spec.js';
import { readClaimOf } from '../attempt/launch-checkpoint.js';
import { hasOwnOutput, outputBlocked, provenDone } from '../attempt/launch-proof.js';
import { infraBreakerOf } from '../executors/infra.js';
import { runCell } from './cell.js';
import type { AdoptedRun, Flight } from '../attempt/cell-core.js';
import { continueFor } from './agent.js';
import { budgetRefusal } from '../policy/budget.js';
import { passBreaker, releaseProbes, type ProbeClaims } from '../policy/breaker-gate.js';
import { pathTakenBy, takenWhy, writersByPath } from '../process/writers.js';
import { heldOutputs } from '../../holders/held-outputs.js';
import type { AutopilotPort, Budget, CellCore, CellRunner, InFlight, JournalPort, Marker, Roles, WorkspaceRef } from './ports.js';
import { forkTarget } from '../../redo/fork.js';
import { SupervisorError, type RunResult } from './types.js';
import { quotaWaitOf, quotaWords } from '../quota/gate.js';
import { pauseStopOf } from '../policy/pause.js';

// The operator's actions on cells and breakers (docs/domain.md, Handling agent faults), each a
// function of the narrow ports it uses (supervisor-ports.ts): each refuses what this instance
// may not do, says exactly why, and journals what it did.

export interface LaunchOptions {
  reason?: string;
  reset?: boolean;
  continue?: boolean;
  /** Go past a spent budget: the operator's explicit word (`checkroom run --over-budget`), journalled. */
  overBudget?: boolean;
}

/** What putting a cell in flight touches: the cell's ports, the flights table, the probes it claimed, autopilot's next look. */
export interface FlyPorts {
  core: CellCore;
  inFlight: InFlight;
  probes: ProbeClaims;
  pilot: Pick<AutopilotPort, 'tick'>;
}

/** Put a cell in flight: runCell carries it (an adopted run is re-attached as its first attempt). */
export function flyCell(
  { core, inFlight, probes, pilot }: FlyPorts,
  unit: string,
  step: string,
  t: CellTarget,
  adopted: AdoptedRun | null,
  { continueAsked = false, overBudget = false }: { continueAsked?: boolean; overBudget?: boolean } = {},
): Promise<RunResult> {
  const key = cellKey(unit, step);
  const flight: Flight = {
    unit,
    step,
    agent: t.agent.name,
    handle: adopted?.handle ?? null,
    // An earlier session's job: a close leaves it to the next driver (docs/reliability.md, "Leave running" survives a restart).
    adopted: adopted !== null,
    runId: adopted?.runId ?? null,
    attempt: adopted?.attempt ?? 0,
    logPath: adopted?.logPath ?? null,
    startedAt: adopted?.startedAt ?? core.now(),
    cancelled: false,
    wait: null,
    prevClaim: null,
    continueAsked,
    overBudget,
  };
  inFlight.flights.set(key, flight);
  const p = (async () => {
    flight.prevClaim = await readClaimOf(core.root, core.config, unit, step).catch(() => null);
    // A job cancelled outside checkroom (scancel) is someone's decision too: its CANCELLED
    // exit holds the cell in the ledger until it is launched again (docs/reliability.md, A cancel is a hold).
    return runCell(core, flight, t, adopted);
  })().finally(() => {
    releaseProbes(probes, key);
    inFlight.flights.delete(key);
    inFlight.running.delete(key);
    pilot.tick();
  });
  inFlight.running.set(key, p);
  return p;
}

/** What the operator's launch checks and where it hands the cell on. */
export interface LaunchPorts {
  ready: Promise<void>;
  roles: Pick<Roles, 'refuse'>;
  ws: WorkspaceRef;
  journal: JournalPort;
  budget: Pick<Budget, 'stop'>;
  inFlight: InFlight;
  probes: ProbeClaims;
  cells: Pick<CellRunner, 'fly'>;
}

/** The target with a redo's fork applied; a fork that cannot be honoured refuses the launch, never runs the default silently. */
const forkOf = (...a: Parameters<typeof forkTarget>): CellTarget => {
  try {
    return forkTarget(...a);
  } catch (err) {
    throw new SupervisorError((err as Error).message);
  }
};

/**
 * A cell the journal already says is escalated while its flight still writes that claim into
 * checkpoint.md: an operator's reset or relaunch right then waits for the write instead of
 * meeting "in flight" (and the escalation's mark can never land over the reset's).
 */
async function settleEscalated(inFlight: InFlight, journal: JournalPort, key: string): Promise<void> {
  const ending = inFlight.running.get(key);
  if (ending && journal.ledger().cells[key]?.state === 'needs_human') await ending.catch(() => undefined);
}

/** Every check a launch must pass (one writer per output, breakers, budgets, escalation), then the cell goes in flight. */
export async function launchCell(
  { ready, roles, ws, journal, budget, inFlight, probes, cells }: LaunchPorts,
  unit: string,
  step: string,
  o: LaunchOptions = {},
): Promise<RunResult> {
  await ready;
  roles.refuse('launch');
  const { config } = ws;
  const key = cellKey(unit, step);
  // A redo's fork (docs/redo.md): the agent or prompt it named, for this run of the cell only.
  const t = forkOf(ws.root, config, targetOf(ws.root, config, unit, step), journal.ledger().triage.overrides[key]);
  await settleEscalated(inFlight, journal, key);
  const { flights } = inFlight;
  if (flights.has(key)) throw new SupervisorError(`${unit} ${step} is already running or waiting for its next attempt`);
  const blocked = outputBlocked(t);
  if (blocked) throw new SupervisorError(`${unit} ${step} is not launched: ${blocked}`);
  let l = journal.ledger();
  if (l.cells[key]?.state === 'needs_human') {
    if (!o.reset)
      throw new SupervisorError(`${unit} ${step} was escalated (${l.cells[key]!.reason ?? 'needs a human'}); reset the cell to count anew, then launch`);
    await journal.append({ type: 'decision', at: journal.now(), kind: 'reset_cell', unit, step, note: 'relaunched by the operator' });
    l = journal.ledger();
  }
  // Drain and pause (docs/drain.md), the one decision every launch asks; no override but resume.
  const paused = pauseStopOf(l.pause, { unit, step, agent: t.agent.name, executor: t.agent.executor });
  if (paused) throw new SupervisorError(`${unit} ${step} is not launched: ${paused.reason}`);
  // The one budget decision, for keys, autopilot, `run` and the socket alike (budget.ts).
  const spent = budget.stop(l);
  if (spent && !o.overBudget) throw new SupervisorError(budgetRefusal(spent));
  // The account's quota (docs/quota.md): no override: the API refuses before the reset, and
  // the wait ends by itself (autopilot, or a cell already waiting, goes on at the reset).
  const quota = quotaWaitOf(l.quotaWaits, t.agent, journal.now());
  if (quota) throw new SupervisorError(`${unit} ${step} is not launched: ${quotaWords(quota, journal.now())}; launch it after the reset`);
  // One writer per output path: checked with no await before the flight is registered, so
  // two launches of cells sharing a file cannot both pass.
  const taken = pathTakenBy(config.pipeline, writersByPath(config.pipeline, [...flights.values(), ...journal.ledger().liveRuns]), unit, step);
  if (taken) throw new SupervisorError(`${unit} ${step} is not launched: ${takenWhy(config.pipeline, taken, unit, step)}; wait until it stops`);
  // …and a process checkroom did not launch may hold it too: the attempt would move the file from under it.
  const held = heldOutputs(ws.root, [t.outputRel], new Set(journal.ledger().liveRuns.flatMap((r) => (r.pid ? [r.pid] : [])))).get(t.outputRel);
  if (held) throw new SupervisorError(`${unit} ${step} is not launched: ${held}`);
  if (o.continue && !continueFor(journal.ledger(), t, unit, true))
    throw new SupervisorError(`${unit} ${step} has no interrupted agent session to continue (adapter claude-code, a session id journalled)`);
  // Last, with no await before the flight: a half-open breaker's one probe is claimed here
  // (breaker-gate.ts), so launches asked for together cannot all be the probe.
  for (const name of [t.agent.name, infraBreakerOf(t.agent.executor)]) {
    if (!name) continue;
    const g = passBreaker(journal.ledger().agents[name], probes, key, config.breaker);
    if (!g.go) {
      releaseProbes(probes, key);
      throw new SupervisorError(g.reason);
    }
  }
  const onHold = journal.ledger().cells[key]?.hold != null;
  const run = cells.fly(unit, step, t, null, { continueAsked: o.continue === true, overBudget: spent !== null });
  // Journalled after the flight is registered (the writer check above needs no await before
  // it) and before its launch event, which waits for the claim read at least.
  if (spent)
    await journal.append({ type: 'decision', at: journal.now(), kind: 'over_budget', unit, step, note: `launched past a spent budget: ${spent.reason}` });
  // Launching a held cell by hand is the release, journalled the same way.
  if (onHold) await journal.append({ type: 'decision', at: journal.now(), kind: 'release', unit, step, note: 'launched by the operator' });
  return run;
}

/**
 * Cancel by run id or by cell key. The operator's cancel holds the cell from autopilot and
 * `run --next`; a shutdown's cancel (a signal to `checkroom run`, quit with cancel) does not:
 * a cron job's timeout must not hold its cells forever.
 */
export function cancelCell(
  { roles, inFlight, journal }: { roles: Pick<Roles, 'refuse'>; inFlight: Pick<InFlight, 'flights'>; journal: JournalPort },
  id: string,
  by: 'operator' | 'shutdown' = 'operator',
): boolean {
  roles.refuse('cancel');
  for (const [key, f] of inFlight.flights) {
    if (key !== id && f.runId !== id) continue;
    f.cancelled = true;
    f.cancelledBy = by;
    // Journalled, so the hold outlives this session; a running attempt's CANCELLED exit says
    // the same, a retry cancelled in its backoff has only this.
    if (by === 'operator')
      void journal
        .append({ type: 'decision', at: journal.now(), kind: 'hold', unit: f.unit, step: f.step, note: 'cancelled by the operator' })
        .catch(() => undefined);
    f.handle?.cancel();
    f.wait?.resolve(false);
    return true;
  }
  return false;
}

/** What the operator's breaker and cell actions touch. */
export interface OperatorPorts {
  ready: Promise<void>;
  roles: Pick<Roles, 'refuse'>;
  ws: WorkspaceRef;
  journal: JournalPort;
  pilot: Pick<AutopilotPort, 'tick'>;
}

export async function breakerAction({ ready, roles, ws, journal, pilot }: OperatorPorts, agent: string, event: 'reset' | 'hold' | 'release'): Promise<void> {
  await ready;
  roles.refuse(`${event} a breaker`);
  // An executor's infra breaker ("slurm:infra") is the operator's to reset too.
  const infra = Object.values(ws.config.agents).some((a) => infraBreakerOf(a.executor) === agent);
  if (!ws.config.agents[agent] && !infra) throw new SupervisorError(`no agent '${agent}' in checkroom.yaml`);
  await journal.append({ type: 'breaker', at: journal.now(), agent, event });
  pilot.tick();
}

export async function resetCell(
  { ready, roles, ws, journal, pilot, inFlight, marker }: OperatorPorts & { inFlight: InFlight; marker: Marker },
  unit: string,
  step: string,
): Promise<void> {
  await ready;
  roles.refuse('reset a cell');
  const t = targetOf(ws.root, ws.config, unit, step);
  const key = cellKey(unit, step);
  await settleEscalated(inFlight, journal, key);
  if (inFlight.flights.has(key)) throw new SupervisorError(`${unit} ${step} is in flight; cancel it first`);
  await journal.append({ type: 'decision', at: journal.now(), kind: 'reset_cell', unit, step, note: 'reset by the operator' });
  // The checkpoint follows the disk again: ✅ proven, ⏳ a half-product, — nothing.
  await marker.mark(unit, step, provenDone(ws.root, ws.config.pipeline, t, unit) ? 'done' : hasOwnOutput(t) ? 'in_progress' : 'not_started');
  pilot.tick();
}
