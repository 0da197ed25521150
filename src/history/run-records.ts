import type { AttemptClass } from '../run/policy/classify.js';
import type { JournalEvent, LaunchEvent } from '../run/journal/journal.js';
import { attemptDuration } from '../run/journal/run-duration.js';
import { cellKey } from '../types.js';

// One run per launch, joined with its exit, its spend and its reap: THE derivation of a run's
// duration and cost from the journal (docs/history.md, Runs). A run's duration is the journal's
// one derivation of an attempt's (run/journal/run-duration.ts), which foresight's samples call
// too, never the gap between two journal lines.

export interface RunRecord {
  runId: string;
  unit: string;
  step: string;
  /** `unit/step`. */
  key: string;
  agent: string;
  attempt: number;
  /** Where it ran: `local` unless the launch named a cluster executor. */
  executor: string;
  launchedAt: number;
  /** The exit's (or the reap's) time; null while the journal has it in flight. */
  endedAt: number | null;
  /** The exit's duration (run-duration.ts); null until it exited (a reaped run has none) or when its line has no usable measure. */
  durationMs: number | null;
  /** A cluster job's wait in its scheduler's queue, apart from durationMs (run-duration.ts); null when none was told. */
  queueWaitMs: number | null;
  /** The exit's class; null in flight or reaped. */
  class: AttemptClass | null;
  exitCode: number | null;
  signal: string | null;
  /** The classified error in one line, raw (callers sanitize); null when none. */
  error: string | null;
  /** What the agent's stream reported (agent_facts, the latest report of the run); null when it reported nothing. */
  costUsd: number | null;
  tokens: { in: number; out: number } | null;
  logPath: string;
  /** From the retry's scheduling to this launch (backoff and breaker waits); null for a first attempt or when no retry was journalled. */
  waitMs: number | null;
  /** `running` until an exit or a reap ends it. */
  outcome: 'running' | 'exited' | 'reaped';
  /** Who cancelled, for a CANCELLED exit. */
  cancelledBy: string | null;
}

/** The duration foresight and History read: the exit's own measure, or null while in flight or reaped. */
export const runDurationMs = (r: RunRecord): number | null => r.durationMs;

const fromLaunch = (e: LaunchEvent, waitMs: number | null): RunRecord => ({
  runId: e.runId,
  unit: e.unit,
  step: e.step,
  key: cellKey(e.unit, e.step),
  agent: e.agent,
  attempt: e.attempt,
  executor: e.executor ?? 'local',
  launchedAt: e.at,
  endedAt: null,
  durationMs: null,
  queueWaitMs: null,
  class: null,
  exitCode: null,
  signal: null,
  error: null,
  costUsd: null,
  tokens: null,
  logPath: e.logPath,
  waitMs,
  outcome: 'running',
  cancelledBy: null,
});

/**
 * Runs folded one event at a time: `apply` returns the record the event created or changed (a
 * new object each time, so holders of the old one keep it), or null. Appending never re-reads
 * what was folded: a 100k-event journal is folded once and then line by line.
 */
export class RunRecordFold {
  private readonly runs = new Map<string, RunRecord>();
  /** A cell's last retry_scheduled time, until its next launch. */
  private readonly retryAt = new Map<string, number>();

  apply(e: JournalEvent): RunRecord | null {
    switch (e.type) {
      case 'launch': {
        const key = cellKey(e.unit, e.step);
        const since = this.retryAt.get(key);
        this.retryAt.delete(key);
        return this.put(fromLaunch(e, since === undefined ? null : Math.max(0, e.at - since)));
      }
      case 'retry_scheduled':
        this.retryAt.set(cellKey(e.unit, e.step), e.at);
        return null;
      case 'exit': {
        const r = this.runs.get(e.runId);
        if (!r) return null;
        return this.put({
          ...r,
          endedAt: e.at,
          durationMs: attemptDuration(e).runMs,
          queueWaitMs: attemptDuration(e).queueWaitMs,
          class: e.class,
          exitCode: e.exitCode,
          signal: e.signal,
          error: e.error ?? e.errorTail.at(-1) ?? null,
          outcome: 'exited',
          cancelledBy: e.cancelledBy ?? null,
        });
      }
      case 'reaped': {
        const r = this.runs.get(e.runId);
        if (!r || r.outcome !== 'running') return null;
        return this.put({ ...r, endedAt: e.at, outcome: 'reaped', error: e.outcome });
      }
      case 'agent_facts': {
        const r = this.runs.get(e.runId);
        if (!r) return null;
        return this.put({ ...r, costUsd: e.costUsd, tokens: { in: e.tokensIn, out: e.tokensOut } });
      }
      default:
        return null;
    }
  }

  get(runId: string): RunRecord | undefined {
    return this.runs.get(runId);
  }

  private put(r: RunRecord): RunRecord {
    this.runs.set(r.runId, r);
    return r;
  }
}

/** Every run of a journal, in launch order. */
export function runRecordsOf(events: Iterable<JournalEvent>): RunRecord[] {
  const fold = new RunRecordFold();
  const order: string[] = [];
  for (const e of events) {
    const r = fold.apply(e);
    if (r && e.type === 'launch') order.push(r.runId);
  }
  return order.map((id) => fold.get(id)!);
}
