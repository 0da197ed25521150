import { sanitizeLine } from '../../sanitize.js';
import { LineRing } from '../ring-buffer.js';
import { outputSignature } from '../process.js';
import type { ProcessOutcome, RunHandle } from '../types.js';
import { LogFollower } from './log-follow.js';
import type { JobEnd } from './slurm-state.js';
import { decideJob, type JobLook, type JobWatchState } from './job-decide.js';
import type { ExecutorSpec } from './types.js';

// A cluster job seen as a RunHandle (issue 12), the same for Slurm and Kubernetes: poll the
// scheduler, follow the log on the shared filesystem, run the idle watchdog on the log and
// the output file growing, and end with a ProcessOutcome the classifier already knows. The
// marker is the proof: a job still shown RUNNING after its marker is on disk counts as done.

export type { JobLook };

export interface JobProbe {
  readonly executor: string;
  readonly id: string;
  look(): Promise<JobLook>;
  /** term: ask the agent to stop (SIGTERM to the batch shell); kill: end the job now. */
  stop(how: 'term' | 'kill'): Promise<void>;
  /** Called once when the handle ends (unsubscribe, copy the last logs). */
  close(): Promise<void>;
}

export interface JobWatchOptions {
  pollMs: number;
  /** Log offset to start following from (adopted runs: near the end). */
  from: number;
  /** Scheduler time limits are checked coarsely; past timeout + this, checkroom ends the job itself. */
  timeoutSlackMs?: number;
  now?: () => number;
}

// eslint-disable-next-line max-lines-per-function -- one closure over a job's poll loop, log follow and watchdog, like startProcess; issue 9 item 3 splits them together
export function watchJob(spec: ExecutorSpec, probe: JobProbe, o: JobWatchOptions): RunHandle {
  const now = o.now ?? Date.now;
  const startedAt = now();
  const ring = new LineRing({ maxLines: spec.ringLines ?? 1000 });
  const subscribers = new Set<(line: string) => void>();
  const follower = new LogFollower(spec.logPath, o.from);
  let why: string | null = 'submitted';
  let lastSig = '';
  const st: JobWatchState = { lastActivity: startedAt, runningSince: null, stopping: null };
  let finished = false;
  let timer: NodeJS.Timeout | null = null;
  let resolve!: (o: ProcessOutcome) => void;
  const result = new Promise<ProcessOutcome>((r) => (resolve = r));

  const emit = (lines: string[]): void => {
    for (const line of lines) {
      ring.add(line);
      for (const fn of subscribers) fn(line);
    }
  };
  const note = (text: string): void => emit([sanitizeLine(`[checkroom] ${text}`)]);
  const readLog = (): void => {
    const text = follower.read();
    if (!text) return;
    // ring.push stores the completed lines (sanitized, bounded); subscribers get the same.
    for (const line of ring.push(text)) for (const fn of subscribers) fn(line);
  };

  const finish = async (end: JobEnd, exitCode: number | null, extra?: string): Promise<void> => {
    if (finished) return;
    finished = true;
    if (timer) clearInterval(timer);
    await probe.close().catch(() => undefined);
    readLog();
    const last = ring.end();
    if (last !== null) for (const fn of subscribers) fn(last);
    if (extra) note(extra);
    const outcome: ProcessOutcome = {
      runId: spec.runId,
      exitCode,
      signal: null,
      spawnError: null,
      stalled: st.stopping === 'stalled',
      timedOut: end.how === 'timeout' || st.stopping === 'timeout',
      cancelled: end.how === 'cancelled' && st.stopping === 'cancel',
      tail: [],
      startedAt,
      endedAt: now(),
      bytesOut: follower.bytes,
      infra: end.how === 'infra' ? end.note : null,
      oomKilled: end.how === 'oom',
    };
    if (end.how === 'cancelled' && st.stopping === null) {
      // Cancelled by someone else (scancel, kubectl delete): not a fault of the agent, and
      // not to be retried behind the back of whoever cancelled it (issue 12).
      outcome.cancelled = true;
      note(`${probe.executor} job ${probe.id} was cancelled outside checkroom`);
    } else if (end.how !== 'exit') note(end.note);
    outcome.tail = ring.lines().slice(-50);
    resolve(outcome);
  };

  const stop = (reason: 'cancel' | 'stalled' | 'timeout', graceMs: number): void => {
    if (st.stopping || finished) return;
    st.stopping = reason;
    if (reason === 'cancel') {
      void probe.stop('kill');
      return;
    }
    void probe.stop('term');
    setTimeout(() => void (finished ? undefined : probe.stop('kill')), graceMs).unref();
  };

  let busy = false;
  const tick = async (): Promise<void> => {
    if (busy || finished) return;
    busy = true;
    try {
      readLog();
      const t = now();
      const sig = `${follower.size()}|${outputSignature(spec.outputPath)}`;
      if (sig !== lastSig) {
        lastSig = sig;
        st.lastActivity = t;
      }
      const look = await probe.look();
      if (finished) return;
      const move = decideJob(st, look, t, { idleTimeoutMs: spec.idleTimeoutMs, timeoutMs: spec.timeoutMs, timeoutSlackMs: o.timeoutSlackMs ?? 120_000 }, spec.proven(), `${probe.executor} job ${probe.id}`);
      if (move.do === 'finish') return void (await finish(move.end, move.exitCode, move.note));
      if (move.do === 'wait') {
        why = move.why;
        // The watchdog counts from the start of the work: a job in the queue is not silent.
        st.lastActivity = t;
        return;
      }
      why = null;
      st.runningSince ??= t;
      if (move.do === 'stop') {
        note(move.note);
        stop(move.reason, spec.graceMs);
      }
    } catch (err) {
      note(`cannot read the state of job ${probe.id}: ${(err as Error).message}`);
    } finally {
      busy = false;
    }
  };
  timer = setInterval(() => void tick(), o.pollMs);
  void tick();

  return {
    runId: spec.runId,
    pid: null,
    procStart: null,
    result,
    job: { executor: probe.executor, id: probe.id },
    why: () => (finished ? null : why),
    cancel() {
      stop('cancel', spec.graceMs);
    },
    onLine(fn) {
      subscribers.add(fn);
      return () => void subscribers.delete(fn);
    },
    lines: () => ring.lines(),
  };
}

/** A handle that ended before any job existed (sbatch refused, kubectl missing). */
export const refusedHandle = (spec: ExecutorSpec, o: { exitCode: number | null; spawnError: string | null; lines: string[]; infra?: string | null }): RunHandle => {
  const lines = o.lines.map((l) => sanitizeLine(l)).slice(-50);
  const t = Date.now();
  const outcome: ProcessOutcome = { runId: spec.runId, exitCode: o.exitCode, signal: null, spawnError: o.spawnError, stalled: false, timedOut: false, cancelled: false, tail: lines, startedAt: t, endedAt: t, bytesOut: 0, infra: o.infra ?? null };
  return { runId: spec.runId, pid: null, procStart: null, result: Promise.resolve(outcome), job: null, why: () => null, cancel() {}, onLine: () => () => undefined, lines: () => lines };
};
