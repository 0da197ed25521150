import { classifyOutcome, type AttemptClass, type ClassifyContext } from '../policy/classify.js';
import { followLog } from './log-follow.js';
import { Liveness, outputSignature } from './watchdog.js';
import { isSameProcessAlive } from './proc.js';
import { DRAIN_MS } from './drain.js';
import { forgetLiveRun, noteLiveRun } from './live-runs.js';
import { tokenOf } from '../journal/recorded-run.js';
import { runMembers, terminateRun, type RunTag } from './members.js';
import type { LiveRun } from '../journal/ledger.js';
import type { ProcessOutcome, RunHandle } from '../types.js';

// A run an earlier checkroom launched and left running, watched from here:
// it is not our child, so there is no pipe and no exit code. Its log and its output file
// are followed on disk (growth is liveness, as for our own runs), its pid is checked against
// the recorded start time, and its end is decided by the marker alone. Its kill (cancel,
// watchdog, or the leader gone with helpers left) reaches every member as for our own runs:
// the group and, by the run token, descendants that left it with setsid.

/** Until the run's keeper (a valid journaled pid and start time) is gone, at most DRAIN_MS. */
const keeperGone = async (k: unknown, pollMs: number): Promise<void> => {
  const keeper = k as { pid?: unknown; procStart?: unknown } | undefined;
  if (!keeper || !Number.isInteger(keeper.pid) || typeof keeper.procStart !== 'number') return;
  const until = Date.now() + DRAIN_MS;
  while (isSameProcessAlive(keeper.pid as number, keeper.procStart) && Date.now() < until) await new Promise((r) => setTimeout(r, Math.min(pollMs, 50)));
};

export interface AdoptSpec {
  run: LiveRun;
  idleTimeoutMs: number;
  timeoutMs: number;
  graceMs: number;
  /** How often the pid, the log and the output file are looked at. Default 250 ms. */
  pollMs?: number;
  ringLines?: number;
}

export function adoptProcess(spec: AdoptSpec): RunHandle {
  const { run } = spec;
  const pid = run.pid!;
  const procStart = run.procStart;
  const log = followLog(run.logPath, { ringLines: spec.ringLines });
  const subscribers = new Set<(line: string) => void>();
  // The leader was the recorded process when adopted (pid and start time), so its group is ours.
  const tag: RunTag = { pgid: pid, procStart, token: tokenOf(run), pipes: [] };
  // A shutdown out of time stops it too (live-runs.ts), as it does our own runs.
  noteLiveRun(run.runId, tag);
  let reason: 'exit' | 'stalled' | 'timeout' | 'cancelled' = 'exit';
  let killing: Promise<unknown> | null = null;
  // The log and the output file growing are liveness, as for our own runs (watchdog.ts).
  const live = new Liveness(() => `${log.bytes}|${outputSignature(run.outputPath)}`, Date.now(), `0|${outputSignature(run.outputPath)}`);
  const adoptedAt = Date.now();
  // The overall timeout counts from the launch, not from the adoption.
  const deadline = spec.timeoutMs > 0 ? run.at + spec.timeoutMs : Infinity;

  const kill = (why: typeof reason): void => {
    if (killing) return;
    reason = why;
    killing = terminateRun(tag, spec.graceMs);
  };

  const look = (): boolean => {
    const lines = log.poll();
    for (const fn of subscribers) for (const l of lines) fn(l);
    live.check(Date.now());
    return isSameProcessAlive(pid, procStart);
  };
  look();

  let timer: NodeJS.Timeout | null = null;
  const result = new Promise<ProcessOutcome>((resolve) => {
    timer = setInterval(() => {
      const alive = look();
      if (alive && !killing) {
        if (spec.idleTimeoutMs > 0 && live.idleFor(Date.now()) >= spec.idleTimeoutMs) kill('stalled');
        else if (Date.now() >= deadline) kill('timeout');
        return;
      }
      if (alive) return;
      clearInterval(timer!);
      // The leader is gone; helpers left in its group or escaped from it would outlive the run (as for our own).
      const rest = killing ?? (runMembers(tag).length > 0 ? terminateRun(tag, spec.graceMs) : Promise.resolve());
      // Its keeper appends the last output when the agent's pipes close: the log's last read waits for it, bounded.
      void rest.then(() => keeperGone(run.keeper, spec.pollMs ?? 250)).then(() => {
        forgetLiveRun(run.runId);
        const lines = log.poll();
        for (const fn of subscribers) for (const l of lines) fn(l);
        resolve({
          runId: run.runId,
          exitCode: null,
          signal: null,
          spawnError: null,
          stalled: reason === 'stalled',
          timedOut: reason === 'timeout',
          cancelled: reason === 'cancelled',
          tail: log.lines(),
          startedAt: Math.min(run.at, adoptedAt),
          endedAt: Date.now(),
          bytesOut: log.bytes,
        });
      });
    }, spec.pollMs ?? 250);
  });

  return {
    runId: run.runId,
    pid,
    procStart,
    result,
    cancel: () => kill('cancelled'),
    // Left running again (a checkroom closing without cancel): stop watching; the journal
    // still shows it live, so the next driver adopts it in turn. The result never comes.
    async leave() {
      if (timer) clearInterval(timer);
      timer = null;
      forgetLiveRun(run.runId);
      return null;
    },
    onLine(fn) {
      subscribers.add(fn);
      return () => void subscribers.delete(fn);
    },
    lines: () => log.lines(),
  };
}

/**
 * An adopted run's class. Its exit code is unknown (it is not our child), so the marker is
 * the whole proof: present → SUCCESS; absent → what the log's tail says (UNKNOWN when nothing).
 */
export const classifyAdopted = (o: ProcessOutcome, ctx: ClassifyContext): AttemptClass => {
  if (ctx.markerFound && !o.cancelled) return 'SUCCESS';
  return classifyOutcome(o, ctx);
};
