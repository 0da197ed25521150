import type { FailureClass } from '../pipeline/config/types.js';
import type { JobFact } from './executors/job-facts.js';

// The contract between the process layer (spawning, watching, killing) and the policy layer
// (classify, count, breakers, journal, supervisor). Plain data only.

export interface ProcessSpec {
  runId: string;
  /** argv[0] is the executable; never run through a shell. */
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  /** Absolute path of the attempt's log file (.checkroom/runs/<run-id>.log). */
  logPath: string;
  /** Absolute path of the step's output file; its growth counts as liveness. */
  outputPath: string | null;
  idleTimeoutMs: number;
  timeoutMs: number;
  graceMs: number;
  /** Lines kept in memory for the log pane. */
  ringLines?: number;
  /** Output bytes written to the log before it is capped (default 64 MiB); the last lines are appended at the end. */
  logMaxBytes?: number;
}

export interface ProcessOutcome {
  runId: string;
  exitCode: number | null;
  signal: string | null;
  /** Spawn failure code (ENOENT = executable not found, EACCES = not executable). */
  spawnError: string | null;
  /** Killed by the idle watchdog (no output, no output-file growth). */
  stalled: boolean;
  /** Killed for exceeding the overall timeout. */
  timedOut: boolean;
  /** Killed because the operator cancelled. */
  cancelled: boolean;
  /** Last lines of combined output, sanitized, bounded. */
  tail: string[];
  startedAt: number;
  endedAt: number;
  bytesOut: number;
  /** A cluster fault in the scheduler's words ("Slurm NODE_FAIL"); classed INFRA. */
  infra?: string | null;
  /** The container was killed for memory. */
  oomKilled?: boolean;
  /** A cluster job's wait in its scheduler's queue (Start − Submit), when the scheduler said. */
  queueWaitMs?: number | null;
}

/** The process holding a local run's pipes and writing its log (relay.ts); journalled with the launch so an adopter waits for it. */
export interface RunKeeper {
  pid: number;
  /** Its /proc start time, to tell it from a recycled pid. */
  procStart: number | null;
}

export interface RunHandle {
  runId: string;
  pid: number | null;
  /** Process start time as recorded in /proc/<pid>/stat (clock ticks since boot), to tell a reused pid apart. */
  procStart: number | null;
  /** The run token every member inherits (local runs), journalled so a restart finds them all. */
  token?: string | null;
  keeper?: RunKeeper | null;
  result: Promise<ProcessOutcome>;
  cancel(): void;
  /**
   * Leave the run running when this checkroom quits: stop watching it, hand
   * its output pipes to a relay that keeps appending to the log, never kill it. `result`
   * then never settles: the outcome is the next checkroom's to decide. The relay's pid.
   */
  leave?(): Promise<number | null>;
  /** Subscribe to output lines (sanitized, each bounded), from the run's start: the lines so far first. Returns unsubscribe. */
  onLine(fn: (line: string) => void): () => void;
  /** Current ring buffer contents. */
  lines(): string[];
  /** The cluster job behind this run, when an executor other than local runs it. */
  job?: { executor: string; id: string } | null;
  /** What the scheduler says while the job waits ("waiting: Resources"), or null. */
  why?(): string | null;
  /** A cluster job's facts apart from its exit, each once: it started (where, after how long
   *  in the queue) and, after `result`, its accounting (executors/job-facts.ts). */
  onJob?(fn: (fact: JobFact) => void): () => void;
}

export type { FailureClass };
