import { classifyOutcome, type AttemptClass, type ClassifyContext } from './classify.js';
import { followLog } from './log-follow.js';
import { outputSignature } from './process.js';
import { groupMembers, isSameProcessAlive, terminateGroup } from './proc.js';
import type { LiveRun } from './ledger.js';
import type { ProcessOutcome, RunHandle } from './types.js';

// A run an earlier checkroom launched and left running (issue 8 item 4), watched from here:
// it is not our child, so there is no pipe and no exit code. Its log and its output file
// are followed on disk (growth is liveness, as for our own runs), its pid is checked against
// the recorded start time, and its end is decided by the marker alone.

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
  const isOurs = (m: { start: number }): boolean => procStart === null || m.start >= procStart;
  let reason: 'exit' | 'stalled' | 'timeout' | 'cancelled' = 'exit';
  let killing: Promise<void> | null = null;
  let lastActivity = Date.now();
  let lastSig = outputSignature(run.outputPath);
  let lastBytes = 0;
  const adoptedAt = Date.now();
  // The overall timeout counts from the launch, not from the adoption.
  const deadline = spec.timeoutMs > 0 ? run.at + spec.timeoutMs : Infinity;

  const kill = (why: typeof reason): void => {
    if (killing) return;
    reason = why;
    killing = terminateGroup(pid, spec.graceMs, isOurs);
  };

  const look = (): boolean => {
    const lines = log.poll();
    for (const fn of subscribers) for (const l of lines) fn(l);
    const sig = outputSignature(run.outputPath);
    if (sig !== lastSig || log.bytes !== lastBytes) {
      lastSig = sig;
      lastBytes = log.bytes;
      lastActivity = Date.now();
    }
    return isSameProcessAlive(pid, procStart);
  };
  look();

  let timer: NodeJS.Timeout | null = null;
  const result = new Promise<ProcessOutcome>((resolve) => {
    timer = setInterval(() => {
      const alive = look();
      if (alive && !killing) {
        if (spec.idleTimeoutMs > 0 && Date.now() - lastActivity >= spec.idleTimeoutMs) kill('stalled');
        else if (Date.now() >= deadline) kill('timeout');
        return;
      }
      if (alive) return;
      clearInterval(timer!);
      // The leader is gone; helpers left in its group would outlive the run (as for our own).
      const rest = killing ?? (groupMembers(pid).some(isOurs) ? terminateGroup(pid, spec.graceMs, isOurs) : Promise.resolve());
      void rest.then(() => {
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
