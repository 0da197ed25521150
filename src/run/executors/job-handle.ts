import { sanitizeLine } from '../../text/sanitize.js';
import { RunOutput } from '../process/output.js';
import { Liveness, outputSignature } from '../process/watchdog.js';
import type { ProcessOutcome, RunHandle } from '../types.js';
import { LogFollower } from './log-follow.js';
import type { JobEnd } from './slurm-state.js';
import { decideJob, type JobLook, type JobWatchState } from './job-decide.js';
import type { JobFact, JobFinished, JobStarted } from './job-facts.js';
import type { ExecutorSpec } from './types.js';

// A cluster job seen as a RunHandle, the same for Slurm and Kubernetes: poll the
// scheduler, follow the log on the shared filesystem, run the idle watchdog on the log and
// the output file growing, and end with a ProcessOutcome the classifier already knows. The
// marker is the proof: a job still shown RUNNING after its marker is on disk counts as done.
// The parts — log follow, poll, stop, end — are named functions over one Job;
// the watchdog's memory is the local process group's (watchdog.ts).

export type { JobLook };

export interface JobProbe {
  readonly executor: string;
  readonly id: string;
  look(): Promise<JobLook>;
  /** term: ask the agent to stop (SIGTERM to the batch shell); kill: end the job now. False: the scheduler did not take it. */
  stop(how: 'term' | 'kill'): Promise<boolean>;
  /** Called once when the handle ends (unsubscribe, copy the last logs). */
  close(): Promise<void>;
  /** Once, when the job is first seen running: when it was submitted and started, and where. */
  started?(): Promise<JobStarted | null>;
  /** Once, after the job ended: the scheduler's accounting of it, or why there is none. */
  finished?(): Promise<JobFinished | null>;
}

export interface JobWatchOptions {
  pollMs: number;
  /** Log offset to start following from (adopted runs: near the end). */
  from: number;
  /** Scheduler time limits are checked coarsely; past timeout + this, checkroom ends the job itself. */
  timeoutSlackMs?: number;
  /** The controller silent this long: the job is shown INFRA, re-checked, not relaunched. */
  infraTimeoutMs?: number;
  now?: () => number;
}

/** One job's watch, as its parts share it. */
interface Job {
  readonly spec: ExecutorSpec;
  readonly probe: JobProbe;
  readonly o: JobWatchOptions;
  readonly now: () => number;
  readonly startedAt: number;
  readonly output: RunOutput;
  readonly follower: LogFollower;
  readonly live: Liveness;
  readonly st: JobWatchState;
  why: string | null;
  finished: boolean;
  busy: boolean;
  /** A stop the scheduler did not take (controller down): asked again at every poll until it lands. */
  stopPending: 'term' | 'kill' | null;
  timer: NodeJS.Timeout | null;
  resolve: (o: ProcessOutcome) => void;
  /** The job's start as the scheduler told it (queue wait, node), once asked. */
  start: JobStarted | null;
  askedStart: boolean;
  readonly facts: Set<(f: JobFact) => void>;
}

const note = (j: Job, text: string): void => {
  j.output.add(sanitizeLine(`[checkroom] ${text}`));
  j.output.flush();
};

// The log's new lines go to the ring raw, and to subscribers formatted in one batch per read
// (run-output.ts), in the same tick as before: nothing waits for a timer.
const readLog = (j: Job): void => {
  const text = j.follower.read();
  if (!text) return;
  j.output.splitters.out.feed(text, j.output.raw);
  j.output.flush();
};

/** What the job's end means for the classifier, with the note that says so. */
const outcomeOf = (j: Job, end: JobEnd, exitCode: number | null): ProcessOutcome => {
  const { st } = j;
  const outcome: ProcessOutcome = {
    runId: j.spec.runId,
    exitCode,
    signal: null,
    spawnError: null,
    stalled: st.stopping === 'stalled',
    timedOut: end.how === 'timeout' || st.stopping === 'timeout',
    cancelled: end.how === 'cancelled' && st.stopping === 'cancel',
    tail: [],
    startedAt: j.startedAt,
    endedAt: j.now(),
    bytesOut: j.follower.bytes,
    infra: end.how === 'infra' ? end.note : null,
    oomKilled: end.how === 'oom',
    queueWaitMs: j.start?.queueWaitMs ?? null,
  };
  if (end.how === 'cancelled' && st.stopping === null) {
    // Cancelled by someone else (scancel, kubectl delete): not a fault of the agent, and
    // not to be retried behind the back of whoever cancelled it.
    outcome.cancelled = true;
    note(j, `${j.probe.executor} job ${j.probe.id} was cancelled outside checkroom`);
  } else if (end.how !== 'exit') note(j, end.note);
  outcome.tail = j.output.lines().slice(-50);
  return outcome;
};

const finish = async (j: Job, end: JobEnd, exitCode: number | null, extra?: string): Promise<void> => {
  if (j.finished) return;
  j.finished = true;
  if (j.timer) clearInterval(j.timer);
  await j.probe.close().catch(() => undefined);
  readLog(j);
  j.output.end();
  j.output.flush();
  if (extra) note(j, extra);
  // A job over before any look saw it run still has a start (and a queue wait) to tell; never
  // asked of a controller that does not answer (the attempt's end must not wait on it).
  if (!j.st.unreachableSince) await askStart(j);
  j.resolve(outcomeOf(j, end, exitCode));
  // After the exit: the scheduler's accounting lags its end, and the attempt does not wait for it.
  if (j.probe.finished) void j.probe.finished().then((job) => job && tell(j, { phase: 'finished', job }), () => undefined);
};

const tell = (j: Job, f: JobFact): void => {
  for (const fn of j.facts) fn(f);
};

/** The first look that sees the job run asks the scheduler when and where it started. */
const askStart = async (j: Job): Promise<void> => {
  if (j.askedStart || !j.probe.started) return;
  j.askedStart = true;
  const start = await j.probe.started().catch(() => null);
  if (!start) return;
  j.start = start;
  tell(j, { phase: 'started', job: start });
};

/** Ask the scheduler to stop the job; a refusal (controller down) is retried at every poll. */
const ask = async (j: Job, how: 'term' | 'kill'): Promise<void> => {
  const ok = await j.probe.stop(how).catch(() => false);
  if (j.finished) return;
  if (!ok && j.stopPending === null) note(j, `the scheduler did not take the stop of ${j.probe.executor} job ${j.probe.id}; asking again at every poll until it does`);
  if (ok && j.stopPending !== null) note(j, `the stop of ${j.probe.executor} job ${j.probe.id} was taken`);
  j.stopPending = ok ? null : how === 'kill' || j.stopPending === 'kill' ? 'kill' : 'term';
};

const stop = (j: Job, reason: 'cancel' | 'stalled' | 'timeout'): void => {
  if (j.st.stopping || j.finished) return;
  j.st.stopping = reason;
  if (reason === 'cancel') {
    void ask(j, 'kill');
    return;
  }
  void ask(j, 'term');
  setTimeout(() => void (j.finished ? undefined : ask(j, 'kill')), j.spec.graceMs).unref();
};

/** One poll: read the log, look at the scheduler, do what decideJob says. */
const look = async (j: Job): Promise<void> => {
  const { spec, probe, st } = j;
  readLog(j);
  const t = j.now();
  st.lastActivity = j.live.check(t);
  if (j.stopPending) await ask(j, j.stopPending);
  const seen = await probe.look();
  if (j.finished) return;
  st.unreachableSince = seen.kind === 'unreachable' ? (st.unreachableSince ?? t) : null;
  const limits = { idleTimeoutMs: spec.idleTimeoutMs, timeoutMs: spec.timeoutMs, timeoutSlackMs: j.o.timeoutSlackMs ?? 120_000, infraTimeoutMs: j.o.infraTimeoutMs };
  const move = decideJob(st, seen, t, limits, spec.proven(), `${probe.executor} job ${probe.id}`);
  if (move.do === 'finish') return finish(j, move.end, move.exitCode, move.note);
  if (move.do === 'wait') {
    j.why = move.why;
    // The watchdog counts from the start of the work: a job in the queue is not silent.
    j.live.touch(t);
    return;
  }
  j.why = null;
  st.runningSince ??= t;
  await askStart(j);
  if (move.do === 'stop') {
    note(j, move.note);
    stop(j, move.reason);
  }
};

const tick = async (j: Job): Promise<void> => {
  if (j.busy || j.finished) return;
  j.busy = true;
  try {
    await look(j);
  } catch (err) {
    note(j, `cannot read the state of job ${j.probe.id}: ${(err as Error).message}`);
  } finally {
    j.busy = false;
  }
};

export function watchJob(spec: ExecutorSpec, probe: JobProbe, o: JobWatchOptions): RunHandle {
  const now = o.now ?? Date.now;
  const startedAt = now();
  // Every line reaches the subscribers: the supervisor reads each through the agent's adapter
  // (a session id journalled mid-run), and a poll's read is bounded already (log-follow.ts).
  const output = new RunOutput(spec.ringLines ?? 1000, { skipBursts: false });
  const follower = new LogFollower(spec.logPath, o.from);
  // The log and the output file growing are liveness; the first look always counts.
  const live = new Liveness(() => `${follower.size()}|${outputSignature(spec.outputPath)}`, startedAt, '');
  const st: JobWatchState = { lastActivity: startedAt, runningSince: null, stopping: null };
  let resolve!: (o: ProcessOutcome) => void;
  const result = new Promise<ProcessOutcome>((r) => (resolve = r));
  const j: Job = { spec, probe, o, now, startedAt, output, follower, live, st, why: 'submitted', finished: false, busy: false, stopPending: null, timer: null, resolve, start: null, askedStart: false, facts: new Set() };
  j.timer = setInterval(() => void tick(j), o.pollMs);
  void tick(j);
  return {
    runId: spec.runId,
    pid: null,
    procStart: null,
    result,
    job: { executor: probe.executor, id: probe.id },
    why: () => (j.finished ? null : j.why),
    cancel: () => stop(j, 'cancel'),
    leave: () => leaveJob(j),
    onLine: (fn) => output.subscribe(fn),
    lines: () => output.lines(),
    onJob: (fn) => {
      j.facts.add(fn);
      return () => j.facts.delete(fn);
    },
  };
}

/**
 * "Leave running" for a job: stop watching, never scancel. The job keeps
 * running on the cluster and writing its log on the shared filesystem; the session stop
 * lists it and the next start adopts it by its job id. The handle's result never settles:
 * no exit is journalled for a run that did not end. Before, the job was scancelled 35 ms
 * after the screen said it was left.
 */
const leaveJob = async (j: Job): Promise<number | null> => {
  if (j.finished || j.st.stopping) return null;
  j.finished = true;
  if (j.timer) clearInterval(j.timer);
  await j.probe.close().catch(() => undefined);
  j.output.end();
  j.output.flush();
  return null;
};

/** A handle that ended before any job existed (sbatch refused, kubectl missing). */
export const refusedHandle = (spec: ExecutorSpec, o: { exitCode: number | null; spawnError: string | null; lines: string[]; infra?: string | null }): RunHandle => {
  const lines = o.lines.slice(-50).map((l) => sanitizeLine(l));
  const t = Date.now();
  const outcome: ProcessOutcome = { runId: spec.runId, exitCode: o.exitCode, signal: null, spawnError: o.spawnError, stalled: false, timedOut: false, cancelled: false, tail: lines, startedAt: t, endedAt: t, bytesOut: 0, infra: o.infra ?? null };
  return { runId: spec.runId, pid: null, procStart: null, result: Promise.resolve(outcome), job: null, why: () => null, cancel() {}, onLine: () => () => undefined, lines: () => lines };
};
