import { join } from 'node:path';
import { outputStamp } from '../attempt/output-stamp.js';
import { cellKey } from '../../types.js';
import { backupFile, copyBackup } from '../../backups/backups.js';
import { sanitizeLine } from '../../text/sanitize.js';
import { guardMemory, lossReason, lostEntries, type MemoryGuard } from '../../memory/guard.js';
import { classifyOutcome, type AttemptClass } from '../policy/classify.js';
import { commandFingerprint, errorFingerprint, keywords } from '../policy/fingerprint.js';
import type { Ledger } from '../journal/ledger.js';
import { attemptLabel } from '../policy/policy.js';
import type { ProcessOutcome, RunHandle } from '../types.js';
import type { StopReason } from '../attempt/cell-move.js';
import { executorFor } from '../executors/registry.js';
import { adapterFor, type AgentFacts } from '../adapters/index.js';
import { failureMessage } from '../attempt/failure-message.js';
import { buildCommand, ensureRunsDir, logPathOf, newRunId, type BuiltCommand, type CellTarget } from '../attempt/launch-spec.js';
import { hasOwnOutput, provenDone } from '../attempt/launch-proof.js';
import { heldOutputs } from '../../holders/held-outputs.js';
import { journalJobFacts } from './job-journal.js';
import { concludeAttempt, continueFor, journalSession, newWatch, watchLine } from './agent.js';
import type { AdoptedRun, Flight } from '../attempt/cell-core.js';
import { assertInside } from '../../fs/confine-path.js';
import { quotaOfAttempt, type QuotaHit } from '../quota/gate.js';
import { attemptResources, journalResources } from '../policy/memory-ladder.js';
import { redactSecrets } from '../../text/redact.js';
import type { CellCore, Emitter, JournalPort, WorkspaceRef } from './ports.js';

// One attempt of a cell, all of its effects and nothing else, so the loop stays a loop: reserve a
// launch, back up or continue, guard the shared memory, build the command, start it through
// the agent's executor, journal the launch, follow its lines, wait, prove by marker, read the
// agent's facts, classify, journal the exit. What follows is nextMove's (cell-move.ts).

/** What runCell keeps across the attempts of one call. */
export interface CellRun {
  /** Attempts launched by this call. */
  launched: number;
  lastClass: AttemptClass | null;
  /** From the last retry decision: "attempt 2 of 5". */
  maxAttempts: number | null;
  /** A run an earlier checkroom launched: the first attempt re-attaches to it. */
  adopted: AdoptedRun | null;
}

export type AttemptEnd =
  /** Nothing was launched: no budget left, or the operator cancelled before the start. */
  | { kind: 'not_started'; stop: StopReason }
  | { kind: 'finished'; attempt: number; label: string; runId: string; cls: AttemptClass; memoryLoss: string | null; retryDelayMs: number | null; quota: QuotaHit | null };

/** Attempts since the last success (cancelled ones included) + 1: "attempt 2 of 5". */
export const nextAttempt = (l: Ledger, key: string): number => {
  const attempts = l.cells[key]?.attempts ?? [];
  let n = 0;
  for (const a of attempts) n = a.class === 'SUCCESS' ? 0 : n + 1;
  return n + 1;
};

/** The last half-product backup of this cell (for {backup}), absolute. */
export const lastBackupOf = (root: string, l: Ledger, unit: string, step: string): string => {
  const d = [...l.decisions].reverse().find((x) => (x.kind === 'backup' || x.kind === 'redo') && x.unit === unit && x.step === step && x.backupPath);
  return d?.backupPath ? join(root, d.backupPath) : '';
};

export const labelOf = (run: CellRun, attempt: number): string =>
  run.maxAttempts ? attemptLabel(attempt, Math.max(run.maxAttempts, attempt)) : `attempt ${attempt}`;

interface Prepared {
  attempt: number;
  cmd: BuiltCommand;
  memory: MemoryGuard | null;
}

/** Continue or back up, guard the memory, build the command (an adopted run keeps its argv). */
async function prepare(core: WorkspaceRef & JournalPort & Emitter, flight: Flight, t: CellTarget, adopted: AdoptedRun | null): Promise<Prepared> {
  const { unit, step } = flight;
  const name = `${unit} ${step}`;
  const l = core.ledger();
  const attempt = adopted?.attempt ?? nextAttempt(l, cellKey(unit, step));
  flight.attempt = attempt;
  let backup = lastBackupOf(core.root, l, unit, step);
  // Continue instead of restart (docs/domain.md, Half-products: the aggressive strategy):
  // the half-product stays where it is for the resumed session to complete.
  const asked = flight.continueAsked === true;
  flight.continueAsked = false;
  const resume = adopted ? null : continueFor(l, t, unit, asked);
  if (resume) {
    // A hand-off gives the partial to a fresh attempt that may rewrite it: a copy is kept
    // first ({backup}), the original stays in place ({partial}) for the agent to complete.
    const copy = resume.mode === 'handoff' && hasOwnOutput(t) ? (await copyBackup(core.root, resume.halfProduct, new Date(core.now()))).backup : null;
    if (copy) backup = join(core.root, copy);
    await core.append({
      type: 'continue',
      at: core.now(),
      unit,
      step,
      sessionId: resume.sessionId,
      halfProduct: resume.halfProduct,
      by: asked ? 'operator' : 'policy',
      mode: resume.mode,
      ...(copy ? { backup: copy } : {}),
    });
    const how = resume.mode === 'resume' ? `continues session ${resume.sessionId}` : `is handed the partial (a copy kept at ${copy})`;
    core.emit({ type: 'notice', message: sanitizeLine(`${name}: attempt ${attempt} ${how} to complete ${resume.halfProduct}`) });
  } else if (!adopted && hasOwnOutput(t)) {
    // Never launch over an existing output: move it aside (file.bak.<stamp>) first.
    const b = await backupFile(core.root, t.outputRel, new Date(core.now()));
    await core.append({
      type: 'decision',
      at: core.now(),
      kind: 'backup',
      unit,
      step,
      path: t.outputRel,
      backupPath: b.backup,
      note: `before attempt ${attempt}`,
    });
    backup = join(core.root, b.backup);
    core.emit({ type: 'notice', message: sanitizeLine(`${name}: backed up ${t.outputRel} to ${b.backup} before attempt ${attempt}`) });
  }
  // Shared long-memory files: copied before the run, their entries checked after it, so no run loses another's entries.
  const memory = await guardMemory(core.root, core.config.pipeline, t.step, new Date(core.now()));
  if (memory?.backups.length)
    core.emit({
      type: 'notice',
      message: sanitizeLine(`${name}: copied ${memory.backups.map((b) => `${b.file} to ${b.backup}`).join(', ')} before attempt ${attempt}`),
    });
  const cell = l.cells[cellKey(unit, step)];
  const built = buildCommand(core.root, unit, t, { attempt, backup, lastError: attempt > 1 && cell ? cell.lastError : '', resume });
  return { attempt, cmd: adopted ? { ...built, argv: adopted.argv } : built, memory };
}

/** Start the attempt through the agent's executor (or take the adopted handle) and journal the launch. */
async function start(
  core: WorkspaceRef & JournalPort,
  flight: Flight,
  t: CellTarget,
  p: Prepared,
  run: CellRun,
  release: () => void,
): Promise<{ handle: RunHandle; runId: string; logPath: string }> {
  const { unit, step } = flight;
  const adopted = run.adopted;
  const { attempt, cmd } = p;
  const at = adopted?.startedAt ?? core.now();
  const runId = adopted?.runId ?? newRunId(unit, step, attempt, at);
  ensureRunsDir(core.root);
  // The one place a new log's path is made: checked here, so the log writers (process-log.ts,
  // relay.ts, the executors) append only inside the workspace (docs/decisions/confine-every-path.md).
  const logPath = adopted?.logPath ?? assertInside('append', logPathOf(core.root, runId), [core.root]);
  // The agent's executor runs it: local process group, Slurm job, Kubernetes Job (docs/scale-out.md).
  const executor = executorFor(t.agent);
  const proven = () => provenDone(core.root, core.config.pipeline, t, unit);
  // The ladder's memory and the step's resources: decided once, for every executor (memory-ladder.ts).
  const resources = attemptResources(t.agent.resources, t.step.resources, core.ledger().cells[cellKey(unit, step)]?.attempts ?? []);
  const spec = {
    runId,
    argv: cmd.argv,
    cwd: cmd.cwd,
    env: cmd.env,
    logPath,
    outputPath: t.outputAbs,
    root: core.root,
    unit,
    step,
    attempt,
    agent: t.agent,
    resources,
    secretNames: cmd.secretNames,
    declaredSecrets: cmd.declaredSecrets,
    proven,
  };
  const limits = { idleTimeoutMs: t.agent.idleTimeoutMs, timeoutMs: resources.timeMs ?? t.agent.timeoutMs, graceMs: t.agent.graceMs };
  const handle = adopted?.handle ?? (await executor.start({ ...spec, ...limits }));
  // An adopted job is an earlier session's run: marked so, a close leaves it to the next
  // driver instead of waiting until its watchdog killed it (docs/reliability.md, "Leave running").
  Object.assign(flight, { handle, runId, logPath, startedAt: at, adopted: adopted !== null });
  // Counted as soon as it runs: a journal write that fails now still leaves the cell ❌.
  run.launched++;
  try {
    // The executor is recorded even when the cluster refused the job (no job id): its
    // INFRA faults must reach that executor's breaker.
    const job = executor.name === 'local' ? {} : { executor: executor.name, jobId: handle.job?.id ?? null };
    // A restart after kill -9 finds every member by it, setsid'd ones too (docs/reliability.md, kill -9).
    const token = handle.token ? { token: handle.token } : {};
    // Whoever adopts the run waits for its keeper before the log's last read (docs/decisions/keeper-relay.md).
    const keeper = handle.keeper ? { keeper: handle.keeper } : {};
    const launch = {
      type: 'launch',
      at,
      runId,
      unit,
      step,
      agent: t.agent.name,
      attempt,
      argv: cmd.argv,
      cwd: cmd.cwd,
      logPath,
      pid: handle.pid,
      procStart: handle.procStart,
      outputPath: t.outputAbs,
    } as const;
    const given = journalResources(resources);
    if (!adopted) await core.append({ ...launch, ...job, ...token, ...keeper, ...(given ? { resources: given } : {}) });
  } finally {
    release();
  }
  run.adopted = null;
  return { handle, runId, logPath };
}

/** Journal the exit with the fingerprints the loop detector needs. */
async function journalExit(
  core: JournalPort,
  flight: Flight,
  t: CellTarget,
  cmd: BuiltCommand,
  runId: string,
  outcome: ProcessOutcome,
  cls: AttemptClass,
  markerFound: boolean,
  facts: AgentFacts,
  quota: QuotaHit | null,
): Promise<void> {
  const tail = outcome.tail.slice(-20);
  const failed = cls !== 'SUCCESS';
  const structured = adapterFor(t.agent).id !== 'command';
  await core.append({
    type: 'exit',
    at: core.now(),
    runId,
    unit: flight.unit,
    step: flight.step,
    agent: t.agent.name,
    exitCode: outcome.exitCode,
    signal: outcome.signal,
    class: cls,
    markerFound,
    cmdFp: commandFingerprint(cmd.argv, cmd.volatile),
    errFp: failed ? errorFingerprint(tail) : '',
    keywords: failed ? [...keywords(tail)] : [],
    errorTail: failed ? tail : [],
    error: failureMessage(cls, outcome, { facts: structured ? facts : null, outputRel: t.outputRel, marker: t.marker, program: cmd.argv[0] ?? '', structured, cancelledBy: flight.cancelledBy }),
    ...(cls === 'CANCELLED' ? { cancelledBy: flight.cancelled ? (flight.cancelledBy ?? 'operator') : 'outside' } : {}),
    durationMs: outcome.endedAt - outcome.startedAt,
    ...(typeof outcome.queueWaitMs === 'number' ? { queueWaitMs: outcome.queueWaitMs } : {}),
    // What the file was when its writer ended: a cut is evidence only while it stays so.
    output: outputStamp(t.outputAbs),
    ...(quota ? { quota } : {}),
  });
}

/** One attempt, from the launch reservation to the journalled exit. */
export async function runAttempt(core: CellCore, flight: Flight, t: CellTarget, run: CellRun): Promise<AttemptEnd> {
  const { unit, step } = flight;
  const name = `${unit} ${step}`;
  const adopted = run.adopted;
  // An adopted run was launched (and counted) by the checkroom that died.
  const noBudget = adopted ? null : core.reserveLaunch(flight);
  if (noBudget) return { kind: 'not_started', stop: { kind: 'launch_budget', reason: noBudget } };
  let reserved = adopted === null;
  const release = (): void => {
    if (reserved) core.releaseLaunch();
    reserved = false;
  };
  try {
    // A retry backs its output up before it runs: not from under a writer checkroom did not
    // launch (a writer is anyone; the first launch is checked in launchCell).
    if (!adopted && hasOwnOutput(t)) {
      const held = heldOutputs(core.root, [t.outputRel], new Set(core.ledger().liveRuns.flatMap((r) => (r.pid ? [r.pid] : [])))).get(t.outputRel);
      if (held) return { kind: 'not_started', stop: { kind: 'output_held', reason: `${name} is not relaunched: ${held}` } };
    }
    const p = await prepare(core, flight, t, adopted);
    if (!adopted) await core.mark(unit, step, 'in_progress');
    if (flight.cancelled && !adopted) return { kind: 'not_started', stop: { kind: 'cancelled' } };
    const { handle, runId, logPath } = await start(core, flight, t, p, run, release);
    const label = labelOf(run, p.attempt);
    const where = handle.job ? `${handle.job.executor} job ${handle.job.id}` : `pid ${handle.pid ?? '-'}`;
    core.emit({
      type: 'launch',
      unit,
      step,
      runId,
      attempt: p.attempt,
      agent: t.agent.name,
      logPath,
      message: sanitizeLine(`${name}: ${label} ${adopted ? 'adopted' : 'started'} (${t.agent.name}, ${where}); log ${logPath}`),
    });
    const watch = newWatch(t);
    flight.watch = watch;
    const off = handle.onLine((out) => {
      // An agent echoing its key: the room, watch and the journal see [secret] (docs/scale-out.md, Secrets).
      const raw = redactSecrets(out);
      const line = watchLine(watch, raw, (f) => journalSession(core.append, core.now(), runId, t, unit, f));
      if (line !== null) core.emit({ type: 'output', unit, step, runId, line, message: `${name} │ ${line}` });
    });
    // An adopted job's start may be journalled already, by the checkroom before the restart.
    const startJournalled = () => !!adopted && !!core.ledger().cells[cellKey(unit, step)]?.jobs.some((j) => j.runId === runId && j.queueWaitMs !== null);
    journalJobFacts(handle, { runId, unit, step }, (e) => core.append(e), () => core.now(), startJournalled);
    // A cancel that raced the start reaches the process now.
    if (flight.cancelled) handle.cancel();
    const outcome = await handle.result;
    off();
    flight.handle = null;
    const lost = p.memory ? lostEntries(core.root, core.config.pipeline, p.memory) : [];
    const markerFound = lost.length === 0 && provenDone(core.root, core.config.pipeline, t, unit);
    const { facts, fromFacts } = await concludeAttempt(watch, logPath, outcome, markerFound, core.append, core.now(), runId, t, unit);
    const classified = classifyOutcome(outcome, { markerFound, rules: t.agent.rules, fromFacts });
    // The account's quota (docs/quota.md): a reset time in the output makes the failure an
    // account-wide wait, journalled with the exit and not counted; the class says why.
    const streak = core.ledger().cells[cellKey(unit, step)]?.quotaStreak ?? 0;
    const quota = lost.length ? null : quotaOfAttempt(classified, outcome.tail, facts.result?.text ?? null, t.agent, streak, core.now());
    const cls: AttemptClass = quota ? 'RATE_LIMITED' : classified;
    run.lastClass = cls;
    await journalExit(core, flight, t, p.cmd, runId, outcome, cls, markerFound, facts, quota);
    const memoryLoss = lost.length ? lossReason(p.memory!, lost) : null;
    return { kind: 'finished', attempt: p.attempt, label, runId, cls, memoryLoss, retryDelayMs: facts.retryDelayMs, quota };
  } finally {
    release();
    // The exit is journalled (or the attempt never started): the ledger says what the probe proved.
    core.releaseProbes(cellKey(unit, step));
  }
}
