// The shapes of foresight (docs/foresight.md): what the journal says of durations and
// throughput, and what the remaining plan makes of them. Plain data, no clock but `at`.

/** Median and p90 of one step's or one agent's successful attempts (nearest rank). */
export interface DurationStat {
  /** The step id or the agent name. */
  name: string;
  count: number;
  medianMs: number;
  p90Ms: number;
}

/** What the journal's fold keeps for foresight (ledger-fold.ts feeds it, samples.ts). */
export interface DurationLedger {
  /** Per step id: successful attempts' run times, newest last, at most SAMPLES_KEPT. */
  steps: Readonly<Record<string, readonly number[]>>;
  /** Per agent, the same. */
  agents: Readonly<Record<string, readonly number[]>>;
  /** Successful exits' times (epoch ms), newest last, at most DONE_KEPT: the throughput's source. */
  done: readonly number[];
  /** Per agent: cluster jobs' waits in their scheduler's queue, every attempt's (docs/scale-out.md, Queue time). */
  queue?: Readonly<Record<string, readonly number[]>>;
}

/** A step with too few samples for an estimate: `more` successful attempts are needed. */
export interface ThinStep {
  step: string;
  samples: number;
  more: number;
}

/** When one part of the plan (the current batch, phase or the whole pipeline) is done. */
export interface Eta {
  /** Batch or phase id; null for the pipeline. */
  id: number | null;
  /** Cells left in it, those that wait for a human included. */
  remaining: number;
  /** Epoch ms at which its last cell is estimated done; null when unknown (thin data, a held breaker, a human). */
  at: number | null;
  /** Steps with too few samples among its remaining cells. */
  thin: ThinStep[];
  /** Why `at` is null, in words ("3 more draft steps"), or null. */
  unknown: string | null;
}

/** The first budget the plan would go past, at this rate, and the cell at which it would. */
export interface BudgetRunOut {
  /** The config key of the budget (limits.max_cost_usd.workspace, …). */
  key: string;
  /** "workspace budget", "session token budget", … */
  what: string;
  unit: string;
  step: string;
}

export interface Forecast {
  /** Money the remaining plan costs at each step's mean per attempt; null with no spend journalled. */
  costToCompleteUsd: number | null;
  runsOut: BudgetRunOut | null;
  /** Cells done per hour, oldest hour first, the last one ending at `at`. */
  perHour: number[];
  durations: { steps: DurationStat[]; agents: DurationStat[]; queue?: DurationStat[] };
}

/** An account waiting for its quota's reset (docs/quota.md): no cell of its agents starts before `deadline`. */
export interface QuotaHold {
  /** The account's id (adapter and a hash of its key's identity, never the key). */
  account: string;
  label: string;
  /** Epoch ms of the reset: every countdown is `deadline − at`. */
  deadline: number;
  /** The agents on it, by name: those seen waiting and those the configuration puts on the same account. */
  agents: string[];
  /** Cells whose last attempt ended on it. */
  cells: number;
  /** Those cells, in key order. */
  waiting: { unit: string; step: string }[];
}

export interface Foresight {
  /** The clock reading it was computed at (epoch ms). */
  at: number;
  /** The quota waits the ETAs count (the operator model's `quota`), soonest first. */
  quota: QuotaHold[];
  batch: Eta | null;
  phase: Eta | null;
  pipeline: Eta;
  /** Remaining cells that wait for a human (escalated, held): no ETA counts them done. */
  needsYou: number;
  forecast: Forecast;
}
