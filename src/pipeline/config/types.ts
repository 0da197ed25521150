import type { PipelineDef } from '../../types.js';
import type { FailureClass } from '../failure-classes.js';
import type { NotifyConfig } from '../../notify/types.js';
import type { Resources } from '../resources.js';

// What checkroom.yaml resolves to. Durations are milliseconds here; the YAML accepts
// numbers (seconds) or strings like "30s", "5m", "250ms".

// The classes are rows of one table; the type derives from it.
export type { FailureClass };

export interface FailureRule {
  /** Regex source matched (case-insensitive) against the attempt's output tail. */
  match?: string;
  exitCode?: number;
  class: FailureClass;
}

export interface AgentDef {
  name: string;
  /** Argument array; placeholders {unit} {step} {output} {marker} {workspace} {attempt} {backup} {last_error}. */
  command: string[];
  env: Record<string, string>;
  /** Working directory (may use placeholders); default the workspace root. */
  cwd: string | null;
  idleTimeoutMs: number;
  timeoutMs: number;
  graceMs: number;
  concurrency: number;
  rules: FailureRule[];
  /** Where the agent runs, a row of src/run/executors/registry.ts; `local` is a process group on this machine. */
  executor: ExecutorName;
  // Each executor's options sit under its key (ExecutorOptions.key). The built-in ones are
  // typed here; a registered one's are read by its own file under the same key.
  slurm: SlurmOptions;
  kubernetes: KubernetesOptions;
  // Which CLI this is and how it is driven, a row of src/run/adapters/index.ts. Absent for a
  // plain `command:` agent, so those resolve exactly as before adapters existed.
  adapter?: string;
  cli?: CliOptions;
  /** After a stalled or cut attempt: start fresh (default) or continue its session. */
  onInterrupt?: 'restart' | 'continue';
  /** Its steps' default resources (docs/scale-out.md, Resources); a step's own win. */
  resources?: Resources;
}

/** Options of an adapter-driven agent. */
export interface CliOptions {
  /** Prompt template (same placeholders as commands); claude-code. */
  prompt: string | null;
  model: string | null;
  permissionMode: string | null;
  allowedTools: string[];
  /** Extra arguments appended as they are (placeholders expanded). */
  args: string[];
  /** The agent's executable; default the adapter's (`claude` from PATH). */
  bin: string | null;
  /** Field paths into each JSON line, for `adapter: jsonl`. */
  jsonl: JsonlFields | null;
}

/** Dotted paths into an agent's JSON lines (`usage.input_tokens`); each one optional. */
export interface JsonlFields {
  session?: string;
  activity?: string;
  /** Appended to the activity: the tool's target (`parameters.file_path`). */
  activityDetail?: string;
  cost?: string;
  tokensIn?: string;
  tokensOut?: string;
  isError?: string;
  errorStatus?: string;
  errorText?: string;
  /** Present with a truthy value on the stream's last, verdict line. */
  final?: string;
}

// ── executors ───────────────────────────────────────────────────────────────────────────

/** A registered executor's name (`executor:` in checkroom.yaml); the registry holds the list. */
export type ExecutorName = string;

export interface SlurmOptions {
  partition: string | null;
  account: string | null;
  /** More sbatch arguments, each one argument (never split by a shell). */
  extraArgs: string[];
  /** How often squeue is asked, ms (1–2 s; sbatch --wait polls far slower). */
  pollMs: number;
  /** A controller silent this long turns in-flight jobs INFRA (re-checked, not relaunched). */
  infraTimeoutMs: number;
  /** Ready cells of one step go out as one job array, `%T` = concurrency (docs/scale-out.md, Arrays). */
  arrays: boolean;
  /** With arrays: tasks per array, and cells of one agent in flight (queued in Slurm or running). */
  arrayMax: number;
}

export interface KubernetesOptions {
  /** The kubectl argv prefix, e.g. [kubectl, --context, prod]. */
  kubectl: string[];
  namespace: string | null;
  image: string | null;
  /** ReadWriteMany claim that holds the workspace; mounted at the workspace's own path. */
  pvc: string | null;
  serviceAccount: string | null;
  /** The Secret the Job's secret names are read from (valueFrom.secretKeyRef). */
  secret: string;
  cpu: string | null;
  memory: string | null;
  pollMs: number;
  /** The API server silent this long turns in-flight Jobs INFRA. */
  infraTimeoutMs: number;
}

/** Where a secret's value is read: checkroom's environment, or a file (0600, the user's own). */
export type SecretSource = { env: string } | { file: string };

export interface Limits {
  /** Launches allowed in one checkroom session (death-spiral guard). */
  maxLaunches: number;
  /**
   * Launches allowed in the workspace, all sessions and entry points together, counted from
   * the journal (limits.max_launches.workspace). Absent = no such cap.
   */
  maxLaunchesWorkspace?: number;
  /** Consecutive failures across all agents that pause autopilot and escalate. */
  maxConsecutiveFailures: number;
  /** Per-class attempt caps overriding the defaults of docs/domain.md, Failure classes and their caps. */
  caps: Partial<Record<FailureClass, number>>;
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** Money and token budgets: reaching one pauses autopilot. Absent = none. */
  budget?: Budget;
}

export interface BreakerConfig {
  threshold: number;
  cooldownMs: number;
  maxCooldownMs: number;
}

export interface SourcesConfig {
  checkpoint: string;
  resume: string;
  /** SQLite todo database path, relative to the workspace; null = use the convention. */
  todos: string | null;
  /** Regex with named groups `unit` and `step` mapping a todo id to a cell. */
  todoPattern: string;
}

export interface WorkspaceConfig {
  /** Path of checkroom.yaml, or null when the built-in preset is used unchanged. */
  file: string | null;
  /** A registered preset's name (src/pipeline/presets/index.ts) or the path of a preset file, as written. */
  preset: string;
  /**
   * Set when no `preset` was written and the workspace's layout chose it (a gate-file
   * workflow's `.claude/context/history/gates/`): the sentence that says so.
   */
  presetDetected?: string;
  /** `language:` in checkroom.yaml: the last resort for the language of rebuilt files. */
  language?: 'en' | 'zh' | 'ja';
  /**
   * `on_hangup:` what a dropped terminal (SIGHUP, a closed pty: an SSH
   * link that blinked) does to the runs in flight. `leave` (default): every run has its
   * keeper, so it is left running, journaled, and adopted by the next start; `stop`: cancelled.
   */
  onHangup?: 'leave' | 'stop';
  /** `notify:` (docs/notify.md): the alarms' commands and terminal alarms; absent = none. */
  notify?: NotifyConfig;
  /** `logs.max_bytes`: the disk budget of .checkroom/runs/ (docs/logs.md, "Disk budget"). */
  logs?: { maxBytes: number };
  /** `secrets:` (docs/scale-out.md, Secrets): where each name's value is read; a file's path is absolute. Absent: none. */
  secrets?: Record<string, SecretSource>;
  pipeline: PipelineDef;
  agents: Record<string, AgentDef>;
  limits: Limits;
  breaker: BreakerConfig;
  sources: SourcesConfig;
}

/** limits.max_cost_usd / limits.max_tokens, per checkroom session and for the whole workspace. */
export interface Budget {
  costUsd: { session: number | null; workspace: number | null };
  tokens: { session: number | null; workspace: number | null };
}
