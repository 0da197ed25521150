import { join } from 'node:path';
import type { WorkspaceConfig } from '../pipeline/config-types.js';
import type { Claim } from '../types.js';
import { cellKey } from '../types.js';
import { backupFile } from '../backups.js';
import { sanitizeLine } from '../sanitize.js';
import { classifyOutcome, type AttemptClass } from './classify.js';
import { commandFingerprint, errorFingerprint, keywords } from './fingerprint.js';
import type { NewJournalEvent } from './journal.js';
import type { Ledger } from './ledger.js';
import { attemptLabel, decideNext } from './policy.js';
import type { RunHandle } from './types.js';
import { executorFor } from './executors/registry.js';
import { infraBreakerOf } from './executors/infra.js';
import { buildCommand, ensureRunsDir, lastErrorLine, logPathOf, newRunId, type CellTarget } from './launch-spec.js';
import { hasOwnOutput, provenDone } from './launch-proof.js';
import { guardMemory, lossReason, lostEntries } from '../memory/guard.js';
import { describeArgv } from './placeholders.js';
import { pausesAutopilot, type RetryStop } from './retry-stop.js';
import type { CommandPreview, RunResult, SupervisorEvent } from './supervisor-types.js';
import { concludeAttempt, continueFor, honourDelay, journalSession, newWatch, watchLine, type AttemptWatch } from './supervisor-agent.js';

// One cell, with its retries (DOMAIN.md sections 8 and 9): launch, wait, prove by marker,
// classify, count, then retry after a jittered backoff or escalate. Intermediate failures
// are `retrying` in the ledger, not alarms; the final failure is surfaced once. Nothing here
// launches on an error path: an internal error ends the cell.

/** What the loop needs from the supervisor. */
export interface CellCore {
  root: string;
  config: WorkspaceConfig;
  now(): number;
  rand(): number;
  append(e: NewJournalEvent): Promise<void>;
  ledger(): Ledger;
  emit(e: SupervisorEvent): void;
  mark(unit: string, step: string, claim: Claim): Promise<void>;
  /** Reserve one launch of the session budget; a reason when none is left. */
  reserveLaunch(): string | null;
  releaseLaunch(): void;
  /** Why automatic retries must stop now (death-spiral guard), or null. */
  retryStop(): RetryStop | null;
  /** Wait until the agent's breaker lets a launch through; a reason when it never will. */
  waitForBreaker(flight: Flight, agent: string): Promise<string | null>;
  /** The consecutive-failure limit was hit: pause autopilot and say so. */
  pauseFor(reason: string): Promise<void>;
}

export interface Flight {
  unit: string;
  step: string;
  agent: string;
  handle: RunHandle | null;
  runId: string | null;
  attempt: number;
  logPath: string | null;
  startedAt: number;
  cancelled: boolean;
  /** A pending backoff or breaker wait: resolve(false) ends it early. */
  wait: { timer: NodeJS.Timeout; resolve: (go: boolean) => void; retryAt: number | null; reason: string } | null;
  /** Claim before the first ⏳, restored on an operator cancel of the first attempt. */
  prevClaim: Claim | null;
  /** The current attempt's adapter and the facts its stream gave so far (issue 11). */
  watch?: AttemptWatch | null;
  /** The operator chose to continue the interrupted session (first attempt only). */
  continueAsked?: boolean;
  /** Left running by an earlier checkroom and watched from here (supervisor-adopt.ts). */
  adopted?: boolean;
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

export const sleepFor = (flight: Flight, ms: number, retryAt: number | null, reason: string): Promise<boolean> =>
  new Promise((resolve) => {
    if (flight.cancelled) return resolve(false);
    const timer = setTimeout(() => {
      flight.wait = null;
      resolve(true);
    }, Math.max(0, ms));
    flight.wait = {
      timer,
      retryAt,
      reason,
      resolve: (go) => {
        clearTimeout(timer);
        flight.wait = null;
        resolve(go);
      },
    };
  });

/** Attempts since the last success (cancelled ones included) + 1: "attempt 2 of 5". */
const nextAttempt = (l: Ledger, key: string): number => {
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

/** The command the cell's next attempt would run, as runCell builds it (before any backup it makes). */
export const previewCommand = (root: string, l: Ledger, t: CellTarget, unit: string, step: string, asContinue = false): CommandPreview => {
  const key = cellKey(unit, step);
  const attempt = nextAttempt(l, key);
  const cell = l.cells[key];
  const resume = continueFor(l, t, unit, asContinue);
  const cmd = buildCommand(root, unit, t, { attempt, backup: lastBackupOf(root, l, unit, step), lastError: attempt > 1 && cell ? lastErrorLine(cell.lastErrorTail) : '', resume });
  return { agent: t.agent.name, argv: cmd.argv, text: describeArgv(cmd.argv), cwd: cmd.cwd };
};

/** A run an earlier checkroom launched, re-attached through its executor (issue 12). */
export interface AdoptedRun {
  handle: RunHandle;
  runId: string;
  attempt: number;
  argv: string[];
  logPath: string;
  startedAt: number;
}

// eslint-disable-next-line max-lines-per-function -- the attempt loop of one cell; issue 9 item 3 splits it into one attempt plus a pure nextMove(outcome, ledger)
export async function runCell(core: CellCore, flight: Flight, t: CellTarget, adoptedRun: AdoptedRun | null = null): Promise<RunResult> {
  let adopted = adoptedRun;
  const { unit, step } = flight;
  const key = cellKey(unit, step);
  const name = `${unit} ${step}`;
  let launched = 0;
  let lastClass: AttemptClass | null = null;
  let maxAttempts: number | null = null;
  const result = (outcome: RunResult['outcome'], reason: string): RunResult => ({ unit, step, outcome, class: lastClass, attempts: launched, reason, logPath: flight.logPath });

  const finalFailure = async (claim: 'failed' | 'needs_human', reason: string): Promise<RunResult> => {
    await core.mark(unit, step, claim);
    const escalated = claim === 'needs_human';
    const what = escalated ? 'escalated to a human (⚠️)' : 'failed (❌; retry when ready)';
    const label = maxAttempts ? attemptLabel(flight.attempt, Math.max(maxAttempts, flight.attempt)) : `attempt ${flight.attempt}`;
    core.emit({
      type: 'failed',
      unit,
      step,
      class: lastClass ?? 'UNKNOWN',
      escalated,
      reason,
      logPath: flight.logPath,
      message: sanitizeLine(`${name}: ${label} failed (${lastClass ?? 'UNKNOWN'}); ${what}: ${reason}${flight.logPath ? `; log: ${flight.logPath}` : ''}`),
    });
    return result(escalated ? 'escalated' : 'failed', reason);
  };
  const cancelled = async (): Promise<RunResult> => {
    // An operator cancel is not a fault (section 9): the cell goes back to what it claimed,
    // or to ❌ when earlier attempts of this call failed, so the failure is not forgotten.
    if (launched > 1 || (lastClass !== null && lastClass !== 'CANCELLED')) await core.mark(unit, step, 'failed');
    else if (flight.prevClaim !== null && flight.prevClaim !== 'in_progress') await core.mark(unit, step, flight.prevClaim);
    core.emit({ type: 'cancelled', unit, step, message: `${name}: cancelled by the operator` });
    return result('cancelled', 'cancelled by the operator');
  };

  try {
    for (;;) {
      if (flight.cancelled) return await cancelled();
      // An adopted run was launched (and counted) by the checkroom that died.
      const noBudget = adopted ? null : core.reserveLaunch();
      if (noBudget) {
        if (launched === 0) return result('failed', noBudget);
        return await finalFailure('failed', noBudget);
      }
      let reserved = adopted === null;
      try {
        const l = core.ledger();
        const attempt = adopted?.attempt ?? nextAttempt(l, key);
        flight.attempt = attempt;
        let backup = lastBackupOf(core.root, l, unit, step);
        // Continue instead of restart (issue 11; DOMAIN.md section 4, the aggressive strategy):
        // the half-product stays where it is for the resumed session to complete.
        const asked = flight.continueAsked === true;
        flight.continueAsked = false;
        const resume = adopted ? null : continueFor(l, t, unit, asked);
        if (resume) {
          await core.append({ type: 'continue', at: core.now(), unit, step, sessionId: resume.sessionId, halfProduct: resume.halfProduct, by: asked ? 'operator' : 'policy' });
          core.emit({ type: 'notice', message: sanitizeLine(`${name}: attempt ${attempt} continues session ${resume.sessionId} to complete ${resume.halfProduct}`) });
        } else if (!adopted && hasOwnOutput(t)) {
          // Never launch over an existing output: move it aside (file.bak.<stamp>) first.
          const b = await backupFile(core.root, t.outputRel, new Date(core.now()));
          await core.append({ type: 'decision', at: core.now(), kind: 'backup', unit, step, path: t.outputRel, backupPath: b.backup, note: `before attempt ${attempt}` });
          backup = join(core.root, b.backup);
          core.emit({ type: 'notice', message: sanitizeLine(`${name}: backed up ${t.outputRel} to ${b.backup} before attempt ${attempt}`) });
        }
        // Shared long-memory files: copied before the run, their entries checked after it (issue 8 item 6).
        const memory = await guardMemory(core.root, core.config.pipeline, t.step, new Date(core.now()));
        if (memory?.backups.length) core.emit({ type: 'notice', message: sanitizeLine(`${name}: copied ${memory.backups.map((b) => `${b.file} to ${b.backup}`).join(', ')} before attempt ${attempt}`) });
        const cell = l.cells[key];
        const built = buildCommand(core.root, unit, t, { attempt, backup, lastError: attempt > 1 && cell ? lastErrorLine(cell.lastErrorTail) : '', resume });
        const cmd = adopted ? { ...built, argv: adopted.argv } : built;
        if (!adopted) await core.mark(unit, step, 'in_progress');
        if (flight.cancelled) return await cancelled();
        const at = adopted?.startedAt ?? core.now();
        const runId = adopted?.runId ?? newRunId(unit, step, attempt, at);
        const logPath = adopted?.logPath ?? logPathOf(core.root, runId);
        ensureRunsDir(core.root);
        // Issue 12: the agent's executor runs it (local process group, Slurm job, Kubernetes Job).
        const executor = executorFor(t.agent);
        const handle =
          adopted?.handle ??
          (await executor.start({
            runId,
            argv: cmd.argv,
            cwd: cmd.cwd,
            env: cmd.env,
            logPath,
            outputPath: t.outputAbs,
            idleTimeoutMs: t.agent.idleTimeoutMs,
            timeoutMs: t.agent.timeoutMs,
            graceMs: t.agent.graceMs,
            root: core.root,
            unit,
            step,
            attempt,
            agent: t.agent,
            proven: () => provenDone(core.root, core.config.pipeline, t, unit),
          }));
        Object.assign(flight, { handle, runId, logPath, startedAt: at });
        launched++;
        try {
          // The executor is recorded even when the cluster refused the job (no job id): its
          // INFRA faults must reach that executor's breaker.
          const job = executor.name === 'local' ? {} : { executor: executor.name, jobId: handle.job?.id ?? null };
          if (!adopted) await core.append({ type: 'launch', at, runId, unit, step, agent: t.agent.name, attempt, argv: cmd.argv, cwd: cmd.cwd, logPath, pid: handle.pid, procStart: handle.procStart, outputPath: t.outputAbs, ...job });
        } finally {
          if (reserved) core.releaseLaunch();
          reserved = false;
        }
        const wasAdopted = adopted !== null;
        adopted = null;
        const label = maxAttempts ? attemptLabel(attempt, Math.max(maxAttempts, attempt)) : `attempt ${attempt}`;
        const where = handle.job ? `${handle.job.executor} job ${handle.job.id}` : `pid ${handle.pid ?? '-'}`;
        core.emit({ type: 'launch', unit, step, runId, attempt, agent: t.agent.name, logPath, message: sanitizeLine(`${name}: ${label} ${wasAdopted ? 'adopted' : 'started'} (${t.agent.name}, ${where}); log ${logPath}`) });
        const watch = newWatch(t);
        flight.watch = watch;
        const off = handle.onLine((raw) => {
          const line = watchLine(watch, raw, (f) => journalSession(core.append, core.now(), runId, t, unit, f));
          if (line !== null) core.emit({ type: 'output', unit, step, runId, line, message: `${name} │ ${line}` });
        });
        // A cancel that raced the start reaches the process now.
        if (flight.cancelled) handle.cancel();
        const outcome = await handle.result;
        off();
        flight.handle = null;
        const lost = memory ? lostEntries(core.root, core.config.pipeline, memory) : [];
        const markerFound = lost.length === 0 && provenDone(core.root, core.config.pipeline, t, unit);
        const { facts, fromFacts } = await concludeAttempt(watch, logPath, outcome, markerFound, core.append, core.now(), runId, t, unit);
        const cls = classifyOutcome(outcome, { markerFound, rules: t.agent.rules, fromFacts });
        lastClass = cls;
        const tail = outcome.tail.slice(-20);
        await core.append({
          type: 'exit',
          at: core.now(),
          runId,
          unit,
          step,
          agent: t.agent.name,
          exitCode: outcome.exitCode,
          signal: outcome.signal,
          class: cls,
          markerFound,
          cmdFp: commandFingerprint(cmd.argv, cmd.volatile),
          errFp: cls === 'SUCCESS' ? '' : errorFingerprint(tail),
          keywords: cls === 'SUCCESS' ? [] : [...keywords(tail)],
          errorTail: cls === 'SUCCESS' ? [] : tail,
          durationMs: outcome.endedAt - outcome.startedAt,
        });
        if (lost.length) {
          // Not retried: another run would start from the damaged file (DOMAIN.md section 9).
          const reason = lossReason(memory!, lost);
          lastClass = 'VERIFICATION_FAILED';
          await core.append({ type: 'escalate', at: core.now(), unit, step, class: lastClass, reason });
          return await finalFailure('needs_human', reason);
        }
        if (cls === 'SUCCESS') {
          await core.mark(unit, step, 'done');
          core.emit({ type: 'done', unit, step, runId, attempt, message: `${name}: done — ${t.marker ? `marker ${t.marker} is the last line` : 'entry written'} (${label})` });
          return result('done', 'the marker proves it');
        }
        if (cls === 'CANCELLED') return await cancelled();

        const next = decideNext(core.ledger().cells[key]?.attempts ?? [], core.config.limits, () => core.rand());
        if (next.kind === 'escalate') {
          await core.append({ type: 'escalate', at: core.now(), unit, step, class: next.class, reason: next.reason });
          return await finalFailure('needs_human', next.reason);
        }
        if (next.kind === 'none') return await finalFailure('failed', next.reason);
        maxAttempts = next.maxAttempts;
        const delayMs = honourDelay(next.class, next.delayMs, facts);
        const stop = core.retryStop();
        if (stop) {
          if (pausesAutopilot(stop)) await core.pauseFor(stop.reason);
          return await finalFailure('failed', `retries stopped: ${stop.reason}`);
        }
        await core.append({ type: 'retry_scheduled', at: core.now(), unit, step, attempt: next.attempt, delayMs, reason: next.reason });
        core.emit({
          type: 'retry',
          unit,
          step,
          attempt: next.attempt,
          maxAttempts: next.maxAttempts,
          class: next.class,
          delayMs,
          message: `${name}: ${attemptLabel(attempt, next.maxAttempts)} failed (${cls}), retrying in ${seconds(delayMs)}`,
        });
        if (!(await sleepFor(flight, delayMs, core.now() + delayMs, next.reason))) return await cancelled();
        const late = core.retryStop();
        if (late) return await finalFailure('failed', `retries stopped: ${late.reason}`);
        const blocked = await core.waitForBreaker(flight, t.agent.name);
        if (flight.cancelled) return await cancelled();
        if (blocked) return await finalFailure('failed', blocked);
        // Issue 12: a cluster that keeps failing has its own breaker; wait for it too.
        const infra = infraBreakerOf(t.agent.executor);
        const down = infra ? await core.waitForBreaker(flight, infra) : null;
        if (flight.cancelled) return await cancelled();
        if (down) return await finalFailure('failed', down);
      } finally {
        if (reserved) core.releaseLaunch();
      }
    }
  } catch (err) {
    // Error path: stop this cell; never relaunch from here (section 9, death spiral).
    const message = sanitizeLine((err as Error).message ?? String(err));
    if (flight.handle) {
      flight.handle.cancel();
      await flight.handle.result.catch(() => undefined);
      flight.handle = null;
    }
    try {
      // Nothing ran yet (the backup before the first attempt failed, say): the agent did not
      // fail, so the cell keeps what it claimed; after an attempt it is ❌.
      if (launched > 0) await core.mark(unit, step, 'failed');
      else if (flight.prevClaim !== null) await core.mark(unit, step, flight.prevClaim);
    } catch {
      // the checkpoint is what failed, perhaps; the event below still tells the operator
    }
    core.emit({ type: 'failed', unit, step, class: lastClass ?? 'UNKNOWN', escalated: false, reason: message, logPath: flight.logPath, message: `${name}: stopped by an internal error: ${message}` });
    return result('failed', message);
  }
}
