import type { JournalEvent } from '../run/journal/journal.js';
import { attemptDuration } from '../run/journal/run-duration.js';
import type { DurationLedger } from './types.js';

// Durations from the journal (docs/foresight.md, Durations): an attempt's run time is the
// journal's one derivation (run/journal/run-duration.ts), History's too. The journal does
// not record when a queued cluster job began to run, so a Slurm or Kubernetes attempt's run
// time includes its wait in the scheduler's queue: there is no queue wait apart from it.
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
  private readonly done: number[] = [];
  private shown: DurationLedger = { steps: {}, agents: {}, done: [] };
  private changed = false;

  feed(e: JournalEvent): void {
    if (e.type !== 'exit' || e.class !== 'SUCCESS') return;
    const { runMs } = attemptDuration(e);
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
    this.shown = { steps: copy(this.steps), agents: copy(this.agents), done: [...this.done] };
    this.changed = false;
    return this.shown;
  }
}

export const emptyDurations = (): DurationLedger => ({ steps: {}, agents: {}, done: [] });
