import type { OperatorPause } from './pause.js';
import type { OperatorQueues } from './queues.js';
import type { FailureClass } from '../pipeline/config/types.js';
import type { Claim, NextStep, CellStatus, Verdict } from '../types.js';
import type { BreakerViewState } from '../run/policy/breaker.js';
import type { CellJob, CellLedger } from '../run/journal/ledger.js';
import type { CellTally } from './ws-counts.js';
import type { Foresight, QuotaHold } from '../foresight/types.js';

// The operator model's shape: what the operator sees, derived once from the
// live workspace, the supervisor's snapshot (journal-derived, so an observer that replays the
// same journal gets the same model) and ONE clock reading. Every surface reads these values;
// none derives its own count, class or countdown.

/** A cell in flight or waiting: one row per cell, whatever the number of sources that speak of it. */
export interface OperatorRun {
  key: string;
  unit: string;
  step: string;
  agent: string;
  /**
   * `running`: a process or a job that runs; `pending`: a cluster job still queued by its
   * scheduler (never counted as running); `waiting`: for its next attempt (backoff,
   * `retryAt` set) or for a breaker (`breaker` names it).
   */
  state: 'running' | 'pending' | 'waiting';
  runId: string | null;
  pid: number | null;
  attempt: number;
  startedAt: number | null;
  /** Epoch ms of the next attempt (backoff); null while waiting for a breaker or running. */
  retryAt: number | null;
  /** What the scheduler or the supervisor says, raw (the view escapes it). */
  reason: string;
  logPath: string | null;
  /** "slurm job 12" when a cluster runs it. */
  job?: string;
  activity?: string;
  /** Adopted after a restart, or the driver's as an observer sees it. */
  origin?: 'adopted' | 'driver';
  /** The breaker this cell waits for, when it waits for one: its countdown is the breaker's deadline. */
  breaker?: string;
}

/** An agent's breaker, with its deadline stored once: every countdown is `deadline − at`. */
export interface OperatorBreaker {
  agent: string;
  /** At the model's clock reading: an open breaker past its deadline is half-open. */
  state: BreakerViewState;
  /** Epoch ms at which an open breaker turns half-open; null unless open. */
  deadline: number | null;
  trips: number;
  consecutiveFailures: number;
  threshold: number;
  openedBy: string[];
  canLaunch: boolean;
  /** Runs of this agent in flight (running or pending) against its concurrency limit (`writer 1/2`). */
  slots: { used: number; limit: number | null };
  /** Whether the journal ever recorded a launch or a failure of it. */
  seen: boolean;
}

/** An account waiting for its quota's reset (docs/quota.md): one deadline, one countdown, whatever the number of agents on it; foresight counts the same value (QuotaHold). */
export type OperatorQuota = QuotaHold;

export interface OperatorEscalation {
  key: string;
  unit: string;
  step: string;
  /** The class the journal's escalate event names: the one class Plan, Health, the status line and the event say. */
  class: FailureClass;
  reason: string;
}

export type AutopilotState = { state: 'on' } | { state: 'paused'; reason: string } | { state: 'off'; reason: string | null };

/** A cell's run facts (only cells the journal or the supervisor speaks of: O(cells with runs)). */
export interface OperatorCell {
  key: string;
  unit: string;
  step: string;
  agent: string | null;
  /** idle / running / pending / retrying / waiting (a breaker) / escalated / held / done. */
  run: 'idle' | 'running' | 'pending' | 'retrying' | 'waiting' | 'escalated' | 'held' | 'done';
  attempts: number;
  /** "attempt 2 of 3" for the next attempt, or null (never for an escalated, held or done cell). */
  nextAttempt: string | null;
  retryAt: number | null;
  escalation: OperatorEscalation | null;
  hold: string | null;
  reason: string | null;
  /** The journal's fold of the cell (attempts, classes, last error), for details; null for a run the journal has not folded yet. */
  ledger: CellLedger | null;
  /** A redo's fork for the cell's next run, in words ("agent writer-b, prompt prompts/v2.md"), or null (docs/redo.md). */
  fork: string | null;
  /** Its latest attempts' cluster jobs (node, queue wait apart from run time, accounting), oldest first; [] for local runs. */
  jobs: readonly CellJob[];
}

/** A workspace cell as the operator sees it: its status, verdict, claim and what blocks it. */
export interface OperatorCellView {
  key: string;
  status: CellStatus;
  verdict: Verdict | null;
  claim: Claim | null;
  blockedBy: string[];
  run: OperatorCell | null;
}

/**
 * The tallies of the workspace's cells (ws-counts.ts: `partial` is the cells whose status is
 * partial, `running` the supervisor's running cells when one is attached), and the rest.
 */
export interface OperatorCounts extends CellTally {
  /** Cluster jobs still queued by their scheduler (never in `running`). */
  pending: number;
  /** Cells waiting for their next attempt (backoff) or for a breaker: in flight, not running. */
  waiting: number;
  /** Every warning a surface lists: the workspace's and the todo table's. */
  warnings: number;
  /** Files without their marker to decide on (the Partials view's first section). */
  halfProducts: number;
  /** Files with a marker on a suspiciously small body (the Partials view's second section). */
  suspects: number;
  discrepancies: number;
  escalated: number;
}

/** A plan entry: one per cell; `also` holds what other entries said of the same cell. */
export type OperatorStep = NextStep & { also?: { action: NextStep['action']; reason: string }[] };

export type HealthRow = { kind: 'agent'; agent: string; breaker: OperatorBreaker } | { kind: 'cell'; cell: OperatorCell };

export interface OperatorModel {
  /** The one clock reading every countdown and elapsed time is drawn from (epoch ms). */
  at: number;
  counts: OperatorCounts;
  /** Cells in flight or waiting, one per cell, sorted by unit then step. */
  runs: OperatorRun[];
  /** Per agent, sorted by name. */
  breakers: OperatorBreaker[];
  /** Cells with run facts, by key. */
  cells: ReadonlyMap<string, OperatorCell>;
  escalations: OperatorEscalation[];
  autopilot: AutopilotState;
  /** The plan: one entry per cell, most urgent action kept. */
  plan: OperatorStep[];
  /** Health rows by urgency: escalated, open breakers, failing, running, idle. */
  health: HealthRow[];
  /** Accounts waiting for their quota's reset at `at`, soonest first. */
  quota: OperatorQuota[];
  /** ETAs, the cost forecast and the throughput (docs/foresight.md). */
  foresight: Foresight;
  /** Drain and pauses (docs/drain.md): the header's DRAINING / DRAINED / PAUSED, Plan's and Health's marks, `status`. */
  pause: OperatorPause;
  /** What waits on named actions and redo (docs/redrive.md, docs/redo.md): the header's segment, Plan's marks, `status`. */
  queues: OperatorQueues;
}
