import type { BreakerConfig, FailureClass, Limits } from '../../pipeline/config/types.js';
import { cellKey } from '../../types.js';
import { breakerView, canLaunch, type BreakerState, type BreakerView } from '../policy/breaker.js';
import type { AttemptClass } from '../policy/classify.js';
import type { DecisionEvent, LaunchEvent } from './journal.js';
import { currentEpisode, type AttemptRecord } from '../policy/policy.js';
import type { CostLedger } from './costs.js';
import type { TriageLedger } from './triage-ledger.js';
import { budgetStopOf, type BudgetCounts } from '../policy/budget.js';
import type { DurationLedger } from '../../foresight/types.js';
import type { QuotaWait } from '../quota/gate.js';
import type { BulkLedger } from '../../bulk/events.js';
import type { PauseState } from '../policy/pause.js';

// Replaying the journal gives everything the UI shows about runs: per-cell attempts and
// counters, per-agent breakers, global death-spiral counters and the runs still alive. It is
// a fold over events, so after a restart (even kill -9) the state is what it was
// (docs/domain.md, The core idea; Handling agent faults). This file is the ledger's shape and its pure rules; the fold
// and replayJournal (the fold from the start) are in ledger-fold.ts, which depends on this
// one and never the other way (no cycle).

export type CellRunState = 'idle' | 'running' | 'retrying' | 'needs_human' | 'done';

export interface CellLedger {
  key: string;
  unit: string;
  step: string;
  agent: string | null;
  /** Attempts since the last reset_cell decision, oldest first. */
  attempts: AttemptRecord[];
  /** Failures per class since the last success (after circular-fix re-classing). */
  counts: Partial<Record<FailureClass, number>>;
  lastClass: AttemptClass | null;
  lastErrorTail: string[];
  /** Held by a cancel (a key, `x`, an outside scancel / kubectl delete) until the operator launches or resets it. */
  hold: { at: number; why: string } | null;
  /** The last failure's classified error, one line: `{last_error}` and Health read it. */
  lastError: string;
  /** How often the latest failure's (command, error) fingerprint pair occurred since the last success. */
  fingerprintRepeats: number;
  state: CellRunState;
  nextRetryAt: number | null;
  /** Reason of the last retry or escalation. */
  reason: string | null;
  escalation: { class: FailureClass; reason: string } | null;
  /** The live run of this cell, if any. */
  runId: string | null;
  /** Its last attempt ended on its account's quota (docs/quota.md): not counted; the next one continues its session. Cleared by a launch. */
  quota: { account: string; until: number; at: number } | null;
  /** Quota exits in a row: past QUOTA_WAITS_MAX the next one is counted like any rate limit (a wait must end). */
  quotaStreak: number;
  /** The cluster jobs of its latest attempts, oldest first, at most CELL_JOBS_KEPT (job-fold.ts). */
  jobs: CellJob[];
}

/** One attempt's cluster job as the journal's `job` records and its exit tell it (docs/scale-out.md). */
export interface CellJob {
  runId: string;
  executor: string;
  jobId: string;
  node: string | null;
  /** Waiting in the scheduler's queue (Start − Submit); null: not told. */
  queueWaitMs: number | null;
  /** The attempt's run time without its queue wait (run-duration.ts), once it exited. */
  runMs: number | null;
  /** The attempt's class, once it exited: INFRA names the node that failed under it. */
  class: string | null;
  /** Slurm's accounting once the job finished, or why there is none. */
  account: null | { accounting: 'sacct'; state: string; elapsedMs: number | null; maxRssKiB: number | null; exitCode: string } | { accounting: 'off'; note: string };
}

export interface AgentLedger {
  agent: string;
  breaker: BreakerState;
  view: BreakerView;
  canLaunch: boolean;
}

/** A launch with no exit and no reaped event: a restarted checkroom must reap and triage it. */
export type LiveRun = Omit<LaunchEvent, 'type' | 'v'> & {
  /** The checkroom (pid) that adopted this run after its launcher went away. */
  adoptedBy?: number;
};

export interface Ledger {
  cells: Record<string, CellLedger>;
  agents: Record<string, AgentLedger>;
  liveRuns: LiveRun[];
  /** Failures in a row across all agents (a success resets it; cancels do not count). */
  consecutiveFailures: number;
  /** Launches since the last session start event. */
  launchesThisSession: number;
  /** Launches in the whole journal, every session (limits.max_launches.workspace). */
  launchesInWorkspace: number;
  sessionStartedAt: number | null;
  autopilot: { on: boolean; reason: string; at: number } | null;
  /** The last session ended by a handover and none started since: what the next driver takes up. */
  handedOver: { at: number; pid: number } | null;
  /** A global limit stops autopilot (death-spiral protection: docs/domain.md, Handling agent faults). */
  paused: boolean;
  pausedReason: string | null;
  decisions: DecisionEvent[];
  /** Money, tokens and sessions of agent attempts. */
  costs: CostLedger;
  /** Accounts waiting for their quota's reset at the view's clock, by account id (docs/quota.md). */
  quotaWaits: Record<string, QuotaWait>;
  /** The operator's redo queue, skips and undo stack (they survive a restart). */
  triage: TriageLedger;
  /** Successful attempts' run times and times, foresight's source (docs/foresight.md). */
  durations: DurationLedger;
  /** Named set actions, the relaunch queue and skipped cells (docs/redrive.md). */
  bulk: BulkLedger;
  /** The operator's drain and pauses (docs/drain.md): what every launch asks (pause.ts). */
  pause: PauseState;
  /** The operator's concurrency per agent, over checkroom.yaml's (docs/scale-out.md, Arrays). */
  concurrency: Record<string, number>;
}

export interface LedgerConfig {
  breaker: BreakerConfig;
  limits: Pick<Limits, 'maxLaunches' | 'maxLaunchesWorkspace' | 'maxConsecutiveFailures' | 'budget'>;
}

export const newCell = (unit: string, step: string): CellLedger => ({
  key: cellKey(unit, step),
  unit,
  step,
  agent: null,
  attempts: [],
  counts: {},
  lastClass: null,
  lastErrorTail: [],
  lastError: '',
  hold: null,
  fingerprintRepeats: 0,
  state: 'idle',
  nextRetryAt: null,
  reason: null,
  escalation: null,
  runId: null,
  quota: null,
  quotaStreak: 0,
  jobs: [],
});

export const repeatsOfLast = (attempts: readonly AttemptRecord[]): number => {
  const episode = currentEpisode(attempts);
  const last = episode[episode.length - 1];
  if (!last) return 0;
  return episode.filter((r) => r.cmdFp === last.cmdFp && r.errFp === last.errFp).length;
};

export const failureSummary = (cls: AttemptClass, error: string): string => (error ? `${cls}: ${error.slice(0, 160)}` : cls);

/** The breakers as seen at `now`: cooldowns end and breakers half-open by the clock, not by events. */
export const agentsAt = (breakers: ReadonlyMap<string, BreakerState>, now: number, cfg: LedgerConfig): Record<string, AgentLedger> => {
  const agents: Record<string, AgentLedger> = {};
  for (const [agent, state] of breakers) {
    agents[agent] = { agent, breaker: state, view: breakerView(state, now, cfg.breaker), canLaunch: canLaunch(state, now, cfg.breaker) };
  }
  return agents;
};

/** Why a global limit stops autopilot (death-spiral protection), or null. */
export const pausedReasonOf = (consecutiveFailures: number, counts: BudgetCounts, cfg: LedgerConfig): string | null => {
  if (consecutiveFailures >= cfg.limits.maxConsecutiveFailures) {
    return `${consecutiveFailures} consecutive failures across agents (limit ${cfg.limits.maxConsecutiveFailures})`;
  }
  // The same decision every launch asks (budget.ts), launches and money.
  return budgetStopOf(counts, cfg.limits)?.reason ?? null;
};
