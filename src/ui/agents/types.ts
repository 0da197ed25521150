import type { BulkOrder } from '../../bulk/apply.js';
import type { Limits, WorkspaceConfig } from '../../pipeline/config/types.js';
import type { Supervisor, SupervisorSnapshot } from '../../run/supervisor/supervisor.js';
import type { OperatorRun } from '../../operator/types.js';
import type { Refused } from '../marks/words.js';

// The control room's view of the agent supervisor: a snapshot replayed from the journal
// (so a restart shows the same), pushed into the store at most every ~250 ms, plus the
// last lines of runs that ended (their ring buffers go with them).

/** The supervisor as the store uses it (process-compose's IProject: a narrow face). */
export type SupervisorPort = Pick<
  Supervisor,
  'root' | 'launch' | 'cancel' | 'setAutopilot' | 'setPause' | 'prefer' | 'resetBreaker' | 'holdBreaker' | 'releaseBreaker' | 'resetCell' | 'redrive' | 'drainRedrive' | 'undoRedrive' | 'snapshot' | 'subscribe' | 'describeCommand' | 'note' | 'refresh' | 'continuable' | 'setConcurrency'
>;

export interface AgentsOptions {
  sup: SupervisorPort;
  config: WorkspaceConfig;
  /** Flush interval (STYLE.md idiom 5); default 250 ms. */
  flushMs?: number;
  /** The supervisor's clock (epoch ms): the operator model's one reading is taken from it at each flush; default Date.now. */
  now?: () => number;
}

/** The output of a run that ended, kept for the log pane (bounded). */
export interface RecentRun {
  key: string;
  runId: string;
  logPath: string;
  lines: string[];
  /** How it ended, in words, once known. */
  outcome: string | null;
}

/** A cell in flight: running, pending in a scheduler's queue, or waiting for its next attempt (backoff or breaker); the operator model's run (src/operator/types.ts). */
export type FlightItem = OperatorRun;

export interface AgentsUi {
  /** A supervisor is attached (false: --readonly, or no checkroom.yaml agents). */
  enabled: boolean;
  /** Why there is no supervisor, in words. */
  why: string | null;
  snap: SupervisorSnapshot | null;
  /** Clock reading (epoch ms) of the snapshot: elapsed times and countdowns use it. */
  at: number;
  limits: Limits | null;
  /** Every agent of checkroom.yaml (the Health view lists them before any launch). */
  agentNames: string[];
  /** Each configured agent's concurrency limit (Health's `writer 1/2`). */
  concurrency?: Readonly<Record<string, number>>;
  /** Each configured agent's quota account id: who else waits when one account does (docs/quota.md). */
  accounts?: Readonly<Record<string, string>>;
  /** `L`: the tall log pane. */
  logOpen: boolean;
  recent: RecentRun[];
  /** How the entry closes the supervisor on quit. */
  quitMode: 'cancel' | 'leave' | null;
  /**
   * The live writers: cell keys ("ch03/draft") with a process that may be
   * writing their output now — launched here, adopted after a restart, or the driver's as an
   * observer sees it. Sorted; the one place triage asks.
   */
  writers: readonly string[];
  /** Read-only: when the driver's terminal last sent a key (epoch ms, from its control socket), or null. */
  driverLastInput: number | null;
}

export const initialAgents = (): AgentsUi => ({ enabled: false, why: null, snap: null, at: 0, limits: null, agentNames: [], logOpen: false, recent: [], quitMode: null, writers: [], driverLastInput: null });

/** What an agents confirmation does when confirmed. */
export type AgentAction =
  /** `overBudget`: the dialog said which budget is spent and Enter goes past it. */
  | { kind: 'launch'; unit: string; step: string; reset: boolean; consent: boolean; redo: boolean; overBudget: boolean }
  | { kind: 'autopilot'; consent: { unit: string; step: string } | null }
  | { kind: 'cancel'; key: string }
  | { kind: 'breaker'; agent: string; op: 'reset' | 'hold' | 'release' }
  | { kind: 'reset_cell'; unit: string; step: string }
  /** Resume the cell's interrupted agent session on its half-product. */
  | { kind: 'continue'; unit: string; step: string }
  | { kind: 'quit'; runs: number }
  /** The marked rows of Plan or Health (marks.ts): each as its single action, the refused ones said in the result. */
  | { kind: 'launches'; launches: { unit: string; step: string; reset: boolean }[]; consent: { unit: string; step: string } | null; overBudget: boolean; refused: Refused[] }
  | { kind: 'cancels'; keys: string[]; refused: Refused[] }
  | { kind: 'reset_cells'; cells: { unit: string; step: string }[]; refused: Refused[] }
  /** A named set action (docs/redrive.md); `consent`: the first launch from this config shows its command. */
  | { kind: 'redrive'; order: BulkOrder; consent: { unit: string; step: string } | null }
  | { kind: 'redrive_undo'; which: string };
