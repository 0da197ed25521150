import { sanitizeLine } from '../../text/sanitize.js';
import { concludeAttempt, newWatch } from './agent.js';
import { adapterFor } from '../adapters/index.js';
import { failureMessage } from '../attempt/failure-message.js';
import { cellKey } from '../../types.js';
import { adoptProcess, classifyAdopted } from '../process/adopted.js';
import { commandFingerprint, errorFingerprint, keywords } from '../policy/fingerprint.js';
import type { LiveRun } from '../journal/ledger.js';
import { targetOf, type CellTarget } from '../attempt/launch-spec.js';
import { provenDone } from '../attempt/launch-proof.js';
import { decideNext } from '../policy/policy.js';
import type { Flight } from '../attempt/cell-core.js';
import type { RunResult } from './types.js';
import { journalJobFacts } from './job-journal.js';
import type { AutopilotPort, Dice, Emitter, InFlight, JournalPort, Marker, WorkspaceRef } from './ports.js';

// An adopted run (docs/reliability.md, "Leave running" survives a restart), from adoption to
// its journalled end: shown running like our own, its log followed, and, once its process is gone, decided by the marker. Its exit
// code is unknown — it is not our child — and every message about its end says so. No retry
// starts from here: a failed adopted run is ❌ (or ⚠️ when its caps are used) and the plan
// offers it again like any failed cell.

const UNKNOWN_EXIT = 'exit code unknown (not a child of this checkroom)';

/** What watching an adopted run to its end touches: no launch gate, since nothing is launched. */
export type AdoptCore = WorkspaceRef & JournalPort & Emitter & Marker & Dice;

export interface AdoptDeps {
  core: AdoptCore;
  inFlight: InFlight;
  /** A cell left the flights: autopilot may look again. */
  pilot: Pick<AutopilotPort, 'tick'>;
  /** Adopt the runs whose job a cluster runs, through their executor (supervisor-adopt-jobs.ts). */
  adoptJobs?(runs: LiveRun[]): Promise<void>;
}

/** A run can be adopted when its cell is not in flight here and its step is still configured. */
export const canAdopt = (d: AdoptDeps, run: LiveRun): boolean => {
  if (d.inFlight.flights.has(cellKey(run.unit, run.step))) return false;
  try {
    targetOf(d.core.root, d.core.config, run.unit, run.step);
    return true;
  } catch {
    return false;
  }
};

/** Watch `run` as a flight of this supervisor until its journalled end. */
export function adoptRun({ core, inFlight, pilot }: AdoptDeps, run: LiveRun): void {
  const key = cellKey(run.unit, run.step);
  const flight = adoptedFlight(run);
  inFlight.flights.set(key, flight);
  const p = followAdopted(core, flight, run, targetOf(core.root, core.config, run.unit, run.step))
    .catch((err: Error): RunResult => {
      const message = sanitizeLine(`${run.unit} ${run.step}: watching the adopted run stopped by an internal error: ${err.message}`);
      core.emit({ type: 'failed', unit: run.unit, step: run.step, class: 'UNKNOWN', escalated: false, reason: err.message, logPath: run.logPath, message });
      return { unit: run.unit, step: run.step, outcome: 'failed', class: null, attempts: 0, reason: err.message, logPath: run.logPath };
    })
    .finally(() => {
      inFlight.flights.delete(key);
      inFlight.running.delete(key);
      pilot.tick();
    });
  inFlight.running.set(key, p);
}

const adoptedFlight = (run: LiveRun): Flight => ({
  unit: run.unit,
  step: run.step,
  agent: run.agent,
  handle: null,
  runId: run.runId,
  attempt: run.attempt,
  logPath: run.logPath,
  startedAt: run.at,
  cancelled: false,
  wait: null,
  prevClaim: null,
  adopted: true,
});

export async function followAdopted(core: AdoptCore, flight: Flight, run: LiveRun, t: CellTarget): Promise<RunResult> {
  const { unit, step } = flight;
  const name = `${unit} ${step}`;
  const result = (outcome: RunResult['outcome'], cls: RunResult['class'], reason: string): RunResult => ({ unit, step, outcome, class: cls, attempts: 0, reason, logPath: run.logPath });
  const handle = adoptProcess({ run, idleTimeoutMs: t.agent.idleTimeoutMs, timeoutMs: t.agent.timeoutMs, graceMs: t.agent.graceMs });
  flight.handle = handle;
  core.emit({
    type: 'launch',
    unit,
    step,
    runId: run.runId,
    attempt: run.attempt,
    agent: run.agent,
    logPath: run.logPath,
    message: sanitizeLine(`${name}: adopted run ${run.runId} (pid ${run.pid}, attempt ${run.attempt}) left running by an earlier checkroom; watching its log and output, the marker decides`),
  });
  const off = handle.onLine((line) => core.emit({ type: 'output', unit, step, runId: run.runId, line, message: `${name} │ ${line}` }));
  journalJobFacts(handle, { runId: run.runId, unit, step }, (e) => core.append(e), () => core.now());
  if (flight.cancelled) handle.cancel();
  const outcome = await handle.result;
  off();
  flight.handle = null;
  const markerFound = provenDone(core.root, core.config.pipeline, t, unit);
  // An adopted agent CLI's log still holds its stream: its cost and verdict count (docs/agents.md, Adapters).
  const { facts, fromFacts } = await concludeAttempt(newWatch(t), run.logPath, outcome, markerFound, core.append, core.now(), run.runId, t, unit);
  const cls = classifyAdopted(outcome, { markerFound, rules: t.agent.rules, fromFacts });
  const tail = outcome.tail.slice(-20);
  const structured = adapterFor(t.agent).id !== 'command';
  await core.append({
    type: 'exit',
    at: core.now(),
    runId: run.runId,
    unit,
    step,
    agent: run.agent,
    exitCode: null,
    signal: null,
    class: cls,
    markerFound,
    cmdFp: commandFingerprint(run.argv),
    errFp: cls === 'SUCCESS' ? '' : errorFingerprint(tail),
    keywords: cls === 'SUCCESS' ? [] : [...keywords(tail)],
    errorTail: cls === 'SUCCESS' ? [] : tail,
    error: failureMessage(cls, outcome, { facts: structured ? facts : null, outputRel: t.outputRel, marker: t.marker, program: run.argv[0] ?? '', structured }),
    durationMs: outcome.endedAt - outcome.startedAt,
    ...(typeof outcome.queueWaitMs === 'number' ? { queueWaitMs: outcome.queueWaitMs } : {}),
  });
  if (cls === 'SUCCESS') {
    await core.mark(unit, step, 'done');
    const proof = t.marker ? `marker ${t.marker} is the last line` : 'entry written';
    core.emit({ type: 'done', unit, step, runId: run.runId, attempt: run.attempt, message: `${name}: done — ${proof} (adopted run, ${UNKNOWN_EXIT}; the marker is the proof)` });
    return result('done', cls, 'the marker proves it');
  }
  if (cls === 'CANCELLED') {
    core.emit({ type: 'cancelled', unit, step, message: `${name}: adopted run cancelled by the operator; its output is left for triage` });
    return result('cancelled', cls, 'cancelled by the operator');
  }
  const next = decideNext(core.ledger().cells[cellKey(unit, step)]?.attempts ?? [], core.config.limits, () => core.rand());
  const escalated = next.kind === 'escalate';
  if (next.kind === 'escalate') await core.append({ type: 'escalate', at: core.now(), unit, step, class: next.class, reason: next.reason });
  await core.mark(unit, step, escalated ? 'needs_human' : 'failed');
  const reason = `adopted run ended without its marker (${UNKNOWN_EXIT})${escalated ? `; ${next.reason}` : ''}`;
  core.emit({
    type: 'failed',
    unit,
    step,
    // The class it escalated as, as journalled, so the event and the ledger agree; else the attempt's own.
    class: next.kind === 'escalate' ? next.class : cls,
    escalated,
    reason,
    logPath: run.logPath,
    message: sanitizeLine(`${name}: ${reason}; class ${cls}; log: ${run.logPath}`),
  });
  return result(escalated ? 'escalated' : 'failed', cls, reason);
}
