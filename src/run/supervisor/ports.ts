import type { WorkspaceConfig } from '../../pipeline/config/types.js';
import type { Claim } from '../../types.js';
import type { BudgetStop } from '../policy/budget.js';
import type { AdoptedRun, Flight } from '../attempt/cell-core.js';
import type { NewJournalEvent } from '../journal/journal.js';
import type { CellTarget } from '../attempt/launch-spec.js';
import type { Ledger } from '../journal/ledger.js';
import type { RetryStop } from '../policy/retry-stop.js';
import type { RunResult, SupervisorEvent } from './types.js';

// The supervisor's parts talk through these few narrow ports, not one shared context: each
// function names the ports it uses in its signature, so Enter → launch → marker → checkpoint
// can be followed function by function (docs/architecture.md, "Follow Enter to the marker").
// supervisor.ts is the one place that builds them and wires them together. Member names do
// not collide, so a part that needs several takes their intersection (`JournalPort & Emitter`).

/** Where: the workspace root (absolute) and its checkroom.yaml. */
export interface WorkspaceRef {
  root: string;
  config: WorkspaceConfig;
}

/** The journal, the only source of truth: append an event, read the ledger folded from it, and the clock that stamps both. */
export interface JournalPort {
  append(e: NewJournalEvent): Promise<void>;
  ledger(): Ledger;
  now(): number;
}

/** One event to every subscriber, its message sanitized to one line (supervisor-context.ts). */
export type Emit = (e: SupervisorEvent) => void;

export interface Emitter {
  emit: Emit;
}

/** The cell's claim in checkpoint.md, one writer at a time (launch-checkpoint.ts). */
export interface Marker {
  mark(unit: string, step: string, claim: Claim): Promise<void>;
}

/** Driver or observer: only the driver launches or writes (supervisor-role.ts). */
export interface Roles {
  isDriver(): boolean;
  /** Throw the reason this instance may not do `what` now (an observer, closed, the workspace gone), if any. */
  refuse(what: string): void;
}

/** What the cells need of autopilot: look again, or stop for a global limit. */
export interface AutopilotPort {
  /** A cell left the flights or a breaker changed: look at the plan again. */
  tick(): void;
  /** The consecutive-failure limit was hit: pause autopilot and say so. */
  pauseFor(reason: string): Promise<void>;
}

/** Put a cell in flight or cancel it (supervisor-launch.ts). */
export interface CellRunner {
  /** runCell carries the cell; an adopted run is re-attached as its first attempt. */
  fly(unit: string, step: string, t: CellTarget, adopted: AdoptedRun | null, o?: { continueAsked?: boolean; overBudget?: boolean }): Promise<RunResult>;
  /** By run id or cell key; the operator's cancel holds the cell, a shutdown's does not. */
  cancel(id: string, by?: 'operator' | 'shutdown'): boolean;
}

/** Cells running or waiting for their next attempt, and the promise of each one's result, by cell key. */
export interface InFlight {
  flights: Map<string, Flight>;
  running: Map<string, Promise<RunResult>>;
}

/** This session's life: launches reserved and not yet journalled; closed: no new attempt starts; stopped: the stop is journalled. */
export interface SessionState {
  reserved: number;
  closed: boolean;
  stopped: boolean;
}

/** The launch budgets with this session's reservations counted (budget.ts: the one decision). */
export interface Budget {
  /** Launches the budgets still allow. */
  left(l: Ledger): number;
  /** The budget the next launch would go past, or null. */
  stop(l: Ledger): BudgetStop | null;
}

/** What lets one attempt start and what it frees when it ends: the budget reservation and the breakers. */
export interface LaunchGate {
  /** Reserve one launch; a reason when none is left (unless the flight goes over budget) or a drain or pause holds it (pause.ts). */
  reserveLaunch(flight: Flight): string | null;
  releaseLaunch(): void;
  /** Why automatic retries of this flight must stop now (death-spiral guard, budgets), or null. */
  retryStop(flight: Flight): RetryStop | null;
  /** Wait until the agent's breaker lets a launch through; a reason when it never will. */
  waitForBreaker(flight: Flight, agent: string): Promise<string | null>;
  /** The cell's attempt ended: the half-open probes it claimed are free (breaker-gate.ts). */
  releaseProbes(key: string): void;
}

/** Jitter for backoffs, in [0, 1). */
export interface Dice {
  rand(): number;
}

/** Everything one cell's run may touch (supervisor-cell.ts); each of its functions takes the part it uses. */
export type CellCore = WorkspaceRef & JournalPort & Emitter & Marker & LaunchGate & Pick<AutopilotPort, 'pauseFor'> & Dice;
