import type { BulkOrder, UndoPlan } from '../../bulk/apply.js';
import type { DrainOutcome, RedriveOutcome } from './redrive.js';
import type { FailureClass, Limits, WorkspaceConfig } from '../../pipeline/config/types.js';
import type { ResumeSpec } from '../adapters/types.js';
import type { AttemptClass } from '../policy/classify.js';
import type { LeftRunning, NewJournalEvent } from '../journal/journal.js';
import type { Ledger } from '../journal/ledger.js';
import type { LockHolder } from './lock.js';
import type { PauseRequest } from './pause-action.js';

// The supervisor's narrow face for the control room and the CLI (STYLE.md: process-compose's
// IProject — the UI sees the runner only through a snapshot and a subscription).

export interface SupervisorOptions {
  /** Workspace root (absolute or relative to the cwd). */
  root: string;
  config: WorkspaceConfig;
  /** Clock, epoch ms. Default Date.now. */
  now?: () => number;
  /** Jitter source in [0, 1). Default Math.random. */
  rand?: () => number;
  /** Read the journal only: no lock taken, no run reaped, every action refused. */
  readonly?: boolean;
  /** Called with every event, like a subscriber registered first. */
  onEvent?: (e: SupervisorEvent) => void;
  /**
   * Autopilot also redoes half-products the plan marks `backup_redo` (priority 2), after a
   * backup. docs/domain.md, Half-products: the conservative strategy — back up, redo — is the default;
   * `decide` entries (maybe complete) always wait for a human. Default true.
   */
  redoHalfProducts?: boolean;
}

export interface RunResult {
  unit: string;
  step: string;
  /** done: the marker proves it. failed: ❌, the operator may retry. escalated: ⚠️ needs a human. */
  outcome: 'done' | 'failed' | 'escalated' | 'cancelled' | 'refused';
  class: AttemptClass | null;
  /** Attempts launched by this call. */
  attempts: number;
  reason: string;
  /** Log of the last attempt, when one was launched. */
  logPath: string | null;
}

export interface LiveRunView {
  runId: string;
  unit: string;
  step: string;
  agent: string;
  attempt: number;
  pid: number | null;
  logPath: string;
  startedAt: number;
  /** Ring-buffer lines (sanitized, bounded), as the agent's adapter renders them. */
  lines: string[];
  /** The cluster job running it, and what the scheduler says while it waits (docs/scale-out.md). */
  job?: { executor: string; id: string } | null;
  why?: string | null;
  /** What the agent is doing now (its last tool call), from its stream (docs/agents.md, Adapters). */
  activity?: string | null;
  sessionId?: string | null;
  costUsd?: number | null;
  /**
   * Who watches it: absent for our own launch; `adopted` for a run an
   * earlier checkroom left running; `driver` for the driver's run as an observer sees it.
   */
  origin?: 'adopted' | 'driver';
}

export interface WaitingView {
  unit: string;
  step: string;
  agent: string;
  /** Epoch ms at which the next attempt may start; null while waiting for a breaker. */
  retryAt: number | null;
  reason: string;
}

export interface AutopilotView {
  on: boolean;
  /** A global limit (docs/domain.md, Handling agent faults: the death-spiral guard) stopped it. */
  paused: boolean;
  reason: string;
}

export interface SupervisorSnapshot {
  role: 'driver' | 'readonly';
  holder: LockHolder | null;
  /** Why this instance cannot launch, in words; null for the driver. */
  readonlyReason: string | null;
  /** Replayed from the journal: everything shown about runs derives from it. */
  ledger: Ledger;
  runs: LiveRunView[];
  waiting: WaitingView[];
  autopilot: AutopilotView;
  launchesThisSession: number;
  limits: Pick<Limits, 'maxLaunches' | 'maxLaunchesWorkspace' | 'maxConsecutiveFailures'> & { consecutiveFailures: number; breakerThreshold: number };
  warnings: string[];
  /** What this instance did about earlier runs and the lock (adopted, reaped, took over), newest last. */
  notices: string[];
}

/** What happened, with a one-line `message` a headless caller can print as is (sanitized). */
export type SupervisorEvent =
  | { type: 'launch'; unit: string; step: string; runId: string; attempt: number; agent: string; logPath: string; message: string }
  | { type: 'output'; unit: string; step: string; runId: string; line: string; message: string }
  | { type: 'retry'; unit: string; step: string; attempt: number; maxAttempts: number; class: FailureClass; delayMs: number; message: string }
  | { type: 'done'; unit: string; step: string; runId: string; attempt: number; message: string }
  /** The final failure of a cell, surfaced once (docs/domain.md, Handling agent faults: withhold intermediate errors). */
  | { type: 'failed'; unit: string; step: string; class: AttemptClass; escalated: boolean; reason: string; logPath: string | null; message: string }
  | { type: 'cancelled'; unit: string; step: string; message: string }
  /** `deadline`: when an open breaker turns half-open (epoch ms, the breaker's own, so every countdown is drawn from it), else null. */
  | { type: 'breaker'; agent: string; state: string; deadline?: number | null; message: string }
  | { type: 'autopilot'; on: boolean; paused: boolean; reason: string; message: string }
  /** Autopilot has nothing in flight and nothing it may launch. */
  | { type: 'idle'; reason: string; message: string }
  | { type: 'reaped'; runId: string; unit: string; step: string; outcome: string; message: string }
  | { type: 'notice'; message: string }
  /** The operator's drain or pause, or its end (docs/drain.md). */
  | { type: 'pause'; scope: 'drain' | 'all' | 'cell' | 'agent' | 'executor'; target: string | null; on: boolean; by: string; message: string }
  /** Draining, and the last run in flight ended: said once. */
  | { type: 'drained'; since: number; message: string };

export class SupervisorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SupervisorError';
  }
}

export type { RedriveOutcome, DrainOutcome } from './redrive.js';

export interface CommandPreview {
  agent: string;
  argv: string[];
  /** describeArgv(argv): the exact command as one shell-quoted line. */
  text: string;
  cwd: string;
  /** What the attempt would be given (memory-ladder.ts attemptResourcesWords); '' when nothing is asked. */
  resources: string;
}

/** The runner behind the control room and `checkroom run` (supervisor.ts). */
export interface Supervisor {
  /** Resolves once the journal is read and runs of a dead predecessor are reaped. */
  readonly ready: Promise<void>;
  readonly root: string;
  /** `continue`: resume the cell's interrupted agent session instead of starting fresh (docs/agents.md). */
  /** `overBudget`: go past a spent budget (budget.ts), journalled as a decision. */
  launch(unit: string, step: string, opts?: { reason?: string; reset?: boolean; continue?: boolean; overBudget?: boolean }): Promise<RunResult>;
  /** Cancel by run id or by cell ("ch05/r2"). A cancelled cell is left alone by autopilot until launched or reset. */
  cancel(runIdOrCell: string): boolean;
  setAutopilot(on: boolean, opts?: { maxLaunches?: number }): Promise<void>;
  /** Look at the plan once and start what autopilot may start. */
  tick(): Promise<void>;
  /** Autopilot takes these cells first when the plan has them (the operator's redo queue, in order). */
  prefer(cells: readonly { unit: string; step: string }[]): void;
  /** Drain or undrain, pause or resume (docs/drain.md): journalled; what was done, in words. */
  setPause(req: PauseRequest): Promise<string>;
  resetBreaker(agent: string): Promise<void>;
  holdBreaker(agent: string): Promise<void>;
  releaseBreaker(agent: string): Promise<void>;
  /** The operator's concurrency of an agent, journalled; a live Slurm array's %T follows. The executor's problems, in words. */
  setConcurrency(agent: string, concurrency: number): Promise<string[]>;
  /** Forget a cell's attempts and escalation (a human decided); the checkpoint cell follows the disk. */
  resetCell(unit: string, step: string): Promise<void>;
  /** A named set action (docs/redrive.md): one journal record; a relaunch's queue goes through the launch gate as slots free. */
  redrive(order: BulkOrder): Promise<RedriveOutcome>;
  /** Launch what a relaunch left queued (after a restart, or a gate that refused). */
  drainRedrive(): Promise<DrainOutcome>;
  /** Undo a named set action (the last one when `which` is null) as one journal record. */
  undoRedrive(which: string | null): Promise<UndoPlan>;
  snapshot(): SupervisorSnapshot;
  subscribe(fn: (e: SupervisorEvent) => void): () => void;
  describeCommand(unit: string, step: string, opts?: { continue?: boolean }): CommandPreview;
  /** The interrupted session this cell's next attempt can continue, or null (docs/agents.md). */
  continuable(unit: string, step: string): ResumeSpec | null;
  /** Record a journal decision (e.g. that the exact command was shown to the operator). */
  note(e: NewJournalEvent): Promise<void>;
  /** Read-only instances: re-read the journal the driver writes; take over when the driver's lock is stale. */
  refresh(): Promise<void>;
  /**
   * cancel: stop the runs in flight; leave: hand them over and leave them running (journaled
   * in the session stop's `left`); reason: how the session ended, journaled with the stop.
   */
  close(opts?: { cancel?: boolean; leave?: boolean; reason?: string }): Promise<LeftRunning[]>;
  /** A shutdown out of time: journal the stop synchronously and release the lock, now (docs/reliability.md). */
  closeNow(reason: string): void;
}
