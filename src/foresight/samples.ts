import type { JournalEvent } from '../run/journal/journal.js';
import { attemptDuration } from '../run/journal/run-duration.js';
import type { DurationLedger } from './types.js';

// Durations from the journal (docs/foresight.md, Durations): an attempt's run time is the
// journal's one derivation (run/journal/run-duration.ts), History's too: a cluster job's wait
// in its scheduler's queue is not run time (docs/scale-out.md, Queue time).
// Only successful attempts estimate a step: a failure's time says how long failing took.

/** Samples kept per step and per agent: the recent ones say how the pipeline runs now. */
export const SAMPLES_KEPT = 200;
/** Successful exits kept for the throughput (a day of a busy pipeline). */
export const DONE_KEPT = 5000;

/** One attempt's run time and queue wait: the journal's one derivation, History's too (run/journal/run-duration.ts). */
export { attemptDuration };

const push = (into: Map<string, number[]>, key: string, v: number, cap: number): void => {
  const a = into.get(key) ?? [];
  a.push(v);
  if (a.length > cap) a.splice(0, a.length - cap);
  into.set(key, a);
};

/** The fold of the journal's exits: fed every event, viewed as an immutable DurationLedger. */
export class SampleFold {
  private readonly steps = new Map<string, number[]>();
  private readonly agents = new Map<string, number[]>();
  private readonly queue = new Map<string, number[]>();
  private readonly done: number[] = [];
  private shown: DurationLedger = { steps: {}, agents: {}, done: [], queue: {} };
  private changed = false;

  feed(e: JournalEvent): void {
    if (e.type !== 'exit') return;
    const { runMs, queueWaitMs } = attemptDuration(e);
    // A queue wait is the cluster's, whatever came of the attempt.
    if (queueWaitMs !== null) {
      push(this.queue, e.agent, queueWaitMs, SAMPLES_KEPT);
      this.changed = true;
    }
    if (e.class !== 'SUCCESS') return;
    // No usable measure on the line: not a sample (History shows no duration for it either).
    if (runMs === null) return;
    push(this.steps, e.step, runMs, SAMPLES_KEPT);
    push(this.agents, e.agent, runMs, SAMPLES_KEPT);
    this.done.push(e.at);
    if (this.done.length > DONE_KEPT) this.done.splice(0, this.done.length - DONE_KEPT);
    this.changed = true;
  }

  /** The same object until an exit is folded: a view handed out is never changed. */
  view(): DurationLedger {
    if (!this.changed) return this.shown;
    const copy = (m: Map<string, number[]>) => Object.fromEntries([...m].map(([k, v]) => [k, [...v]]));
    this.shown = { steps: copy(this.steps), agents: copy(this.agents), done: [...this.done], queue: copy(this.queue) };
    this.changed = false;
    return this.shown;
  }
}

export const emptyDurations = (): DurationLedger => ({ steps: {}, agents: {}, done: [], queue: {} });
