// The failure classes as one table ("adding a failure class is one table row").
// The FailureClass type, the default caps, the retryable and never-retry sets, the built-in
// signs the classifier tries, the gate signs and the help text of the strategy table all
// derive from these rows; nothing else lists the classes. It lives in src/pipeline because
// the config schema (caps, rule classes) needs it and src/pipeline does not import src/run.
// Every value comes from docs/domain.md, Failure classes and their caps, and Handling agent faults.
//
// `cap` counts total attempts, as the source table does (the recovery
// skill's 試行回数のしきい値, "max attempts": VERIFICATION_FAILED 3, UNKNOWN 2 — "retry once,
// then escalate" — BROKEN_BUILD 1, CIRCULAR_FIX 0). It used to count retries after the first
// failure, one attempt more than the table everywhere. The classes the source table does not
// list keep the budget they had, now written as attempts (retries + 1); a class that never
// retries has 0: once it is recognised, no further attempt.

/**
 * How a class is retried (docs/domain.md, Handling agent faults):
 * - `unchanged`: a fault of the environment; retrying unchanged after a backoff can succeed.
 * - `counted`: a fault of the attempt; retried (with the error) under the class's cap.
 * - `never`: retrying unchanged gives the same result; escalate at once, whatever the cap.
 */
export type RetryKind = 'unchanged' | 'counted' | 'never';

/** A built-in sign: tried in ascending `order` after the agent's own rules. */
export interface ClassSign {
  order: number;
  test: (text: string, exitCode: number | null) => boolean;
}

export interface FailureClassRow {
  name: string;
  /**
   * Total attempts allowed while failures of this class occur, by default (the source table's
   * "max attempts"); configurable per class (limits.caps). At the cap the cell escalates;
   * 0: escalate the moment the class is recognised.
   */
  cap: number;
  retry: RetryKind;
  /** How the output tail shows it, when the process facts do not already say. */
  sign?: ClassSign;
  /** How a failed gate's errors show it (src/gates): tried in table order. */
  gateSign?: RegExp;
  /** Help text of the error → strategy table (Health view, docs). */
  help: { signs: string; recovery: string; then: string };
}

const re =
  (source: RegExp) =>
  (text: string): boolean =>
    source.test(text);

/** An allocation refused or a process killed for memory, as runtimes and kernels word it. */
const OUT_OF_MEMORY = /out of memory|Cannot allocate memory|\bENOMEM\b|Array buffer allocation failed|\bMemoryError\b|std::bad_alloc|oom[-_ ]kill/i;

// Sign order matters: the more specific transient signs come first, so "429 ... permission"
// style mixtures resolve to the class whose recovery is cheapest to try.
export const FAILURE_CLASS_TABLE = [
  {
    name: 'BROKEN_BUILD',
    cap: 1,
    retry: 'counted',
    sign: { order: 8, test: re(/SyntaxError|build failed|Cannot find module|module not found|compilation (?:error|failed)|ERR_MODULE_NOT_FOUND/i) },
    gateSign: /syntax ?error|build failed|compil(e|ation) error|cannot find module|module not found/i,
    help: {
      signs: 'SyntaxError, build failed, Cannot find module, compilation error',
      recovery: 'roll back the output; the fix needs a human (1 attempt in all)',
      then: 'roll back and escalate',
    },
  },
  {
    name: 'VERIFICATION_FAILED',
    cap: 3,
    retry: 'counted',
    help: { signs: 'exit 0 but the completion marker is missing; checks fail', recovery: 'fix and retry', then: 'skip the cell and escalate' },
  },
  {
    name: 'CIRCULAR_FIX',
    cap: 0,
    retry: 'counted',
    help: {
      signs: 'same error 3+ times, or attempts >30% alike (Jaccard) to 2 of the last 3',
      recovery: 'stop; change approach',
      then: 'skip at once and escalate',
    },
  },
  {
    name: 'CONTEXT_EXHAUSTED',
    cap: 3,
    retry: 'counted',
    sign: { order: 4, test: re(/context (?:length|window)|token limit|maximum context|too long|max(?:imum)? tokens/i) },
    gateSign: /token limit|context (window|length)|maximum context|max(imum)? length exceeded/i,
    help: { signs: 'context length, token limit, maximum context, too long', recovery: 'compress context and continue', then: 'escalate' },
  },
  { name: 'UNKNOWN', cap: 2, retry: 'counted', help: { signs: 'nothing else matches', recovery: 'retry once', then: 'escalate' } },
  {
    name: 'RATE_LIMITED',
    cap: 5,
    retry: 'unchanged',
    sign: { order: 1, test: re(/\b429\b|rate[ -]?limit|too many requests/i) },
    help: { signs: '429, rate limit, too many requests', recovery: 'back off exponentially with jitter, retry unchanged', then: 'escalate' },
  },
  {
    name: 'OVERLOADED',
    cap: 5,
    retry: 'unchanged',
    sign: { order: 2, test: re(/\b529\b|\b503\b|overloaded|\bcapacity\b|service unavailable/i) },
    help: { signs: '529, 503, overloaded, capacity', recovery: 'back off exponentially with jitter, retry unchanged', then: 'escalate' },
  },
  {
    name: 'NETWORK',
    cap: 4,
    retry: 'unchanged',
    sign: { order: 3, test: re(/ECONNRESET|ETIMEDOUT|ENOTFOUND|EAI_AGAIN|ECONNREFUSED|socket hang up|\bnetwork\b/i) },
    help: { signs: 'ECONNRESET, ETIMEDOUT, ENOTFOUND, EAI_AGAIN, socket hang up', recovery: 'back off and retry unchanged', then: 'escalate' },
  },
  {
    name: 'STALLED',
    cap: 3,
    retry: 'unchanged',
    help: {
      signs: 'no output and no output-file growth for the idle timeout, or overall timeout',
      recovery: 'kill the process group and retry',
      then: 'escalate',
    },
  },
  {
    name: 'INVALID_INPUT',
    cap: 0,
    retry: 'never',
    sign: { order: 7, test: (t, code) => /invalid argument|unknown option|^\s*usage:/im.test(t) || (code === 2 && /usage/i.test(t)) },
    help: { signs: 'invalid argument, unknown option, usage:', recovery: 'none unchanged: fix the command or input', then: 'escalate at once' },
  },
  {
    name: 'PERMISSION',
    cap: 0,
    retry: 'never',
    sign: { order: 5, test: re(/\bEACCES\b|permission denied|\bEPERM\b|operation not permitted/i) },
    help: { signs: 'EACCES, EPERM, permission denied', recovery: 'none unchanged: fix permissions', then: 'escalate at once' },
  },
  {
    name: 'TOOL_NOT_FOUND',
    cap: 0,
    retry: 'never',
    sign: { order: 6, test: (t, code) => code === 127 || /command not found|spawn \S+ ENOENT|ENOENT.*spawn/i.test(t) },
    help: { signs: 'spawn ENOENT, command not found, exit 127', recovery: 'none unchanged: install the tool or fix the command', then: 'escalate at once' },
  },
  // A cluster fault is retried without touching the agent's budgets; the cap only
  // keeps the path finite, and the executor's own breaker stops a broken cluster sooner.
  {
    name: 'INFRA',
    cap: 7,
    retry: 'unchanged',
    help: {
      signs: 'Slurm NODE_FAIL, PREEMPTED, BOOT_FAIL; pod Unschedulable, ImagePullBackOff',
      recovery: "retry unchanged; counts against the executor's breaker, not the agent's",
      then: 'escalate',
    },
  },
  {
    name: 'OOM_KILLED',
    cap: 2,
    retry: 'counted',
    // Slurm's OUT_OF_MEMORY and Kubernetes' OOMKilled arrive as process facts; locally the
    // kernel's or the memory limit's words in the tail say it (docs/scale-out.md, Resources).
    sign: { order: 9, test: (t, code) => OUT_OF_MEMORY.test(t) || (code === 137 && /\bKilled\b/.test(t)) },
    help: {
      signs: 'Slurm OUT_OF_MEMORY, Kubernetes OOMKilled; "out of memory", "Cannot allocate memory", "Array buffer allocation failed" in the tail, or exit 137 with "Killed"',
      recovery: 'retry one memory step up (resources.memory_ladder); without a ladder, retry once',
      then: 'escalate',
    },
  },
] as const satisfies readonly FailureClassRow[];

export type FailureClass = (typeof FAILURE_CLASS_TABLE)[number]['name'];

/** Everything derived from a table of classes; `classesFrom` builds it for any table. */
export interface FailureClasses<C extends string = FailureClass> {
  /** In table order: the order of the strategy table and of the config's error hints. */
  names: readonly [C, ...C[]];
  rows: ReadonlyMap<C, FailureClassRow & { name: C }>;
  defaultCaps: Readonly<Record<C, number>>;
  /** Faults of the environment, not of the attempt: retrying unchanged can succeed. */
  retryable: ReadonlySet<C>;
  /** Retrying these unchanged gives the same result: escalate at once. */
  neverRetryUnchanged: ReadonlySet<C>;
  /** Built-in signs in the order the classifier tries them. */
  signs: readonly { class: C; test: ClassSign['test'] }[];
  gateSigns: readonly { class: C; sign: RegExp }[];
}

export function classesFrom<const R extends readonly FailureClassRow[]>(table: R): FailureClasses<R[number]['name']> {
  type C = R[number]['name'];
  const rows = table as readonly (FailureClassRow & { name: C })[];
  if (rows.length === 0) throw new Error('a failure-class table needs at least one row');
  const names = rows.map((r) => r.name) as unknown as [C, ...C[]];
  if (new Set(names).size !== names.length) throw new Error(`a failure class is listed twice: ${names.join(', ')}`);
  const by = (kind: RetryKind): ReadonlySet<C> => new Set(rows.filter((r) => r.retry === kind).map((r) => r.name));
  return {
    names,
    rows: new Map(rows.map((r) => [r.name, r])),
    defaultCaps: Object.fromEntries(rows.map((r) => [r.name, r.cap])) as Record<C, number>,
    retryable: by('unchanged'),
    neverRetryUnchanged: by('never'),
    signs: rows
      .flatMap((r) => (r.sign ? [{ class: r.name, order: r.sign.order, test: r.sign.test }] : []))
      .sort((a, b) => a.order - b.order)
      .map(({ class: c, test }) => ({ class: c, test })),
    gateSigns: rows.flatMap((r) => (r.gateSign ? [{ class: r.name, sign: r.gateSign }] : [])),
  };
}

/** The built-in classes. */
export const BUILT_IN_CLASSES: FailureClasses = classesFrom(FAILURE_CLASS_TABLE);
