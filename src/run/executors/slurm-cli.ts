import { execa } from 'execa';
import { parseSqueue, SQUEUE_FORMAT, type SqueueRow } from './slurm-state.js';
import { sacctArgs } from './sacct.js';
import { gatherer } from './gather.js';

// The Slurm commands checkroom runs, each as an argument array (never a shell string), with
// the environment that names the cluster (SLURM_CONF and friends). One squeue per poll
// serves every job of one cluster (SlurmQueue), so 40 jobs in flight cost one call a second.

export interface CliResult {
  code: number;
  out: string;
  err: string;
}

const run = async (argv: string[], env: Record<string, string>, timeoutMs = 30_000): Promise<CliResult> => {
  const r = await execa(argv[0]!, argv.slice(1), { env, extendEnv: false, reject: false, timeout: timeoutMs, stdin: 'ignore', shell: false });
  const spawnFailed = r.exitCode === undefined;
  return { code: spawnFailed ? 127 : (r.exitCode ?? 1), out: String(r.stdout ?? ''), err: spawnFailed ? String(r.message) : String(r.stderr ?? '') };
};

export type Submitted = { ok: true; id: string } | { ok: false; result: CliResult };

/** sbatch --parsable prints "<id>" or "<id>;<cluster>". */
export const submitJob = async (args: string[], env: Record<string, string>): Promise<Submitted> => {
  const r = await run(['sbatch', '--parsable', ...args], env);
  const id = /^(\d+)(?:;\S+)?\s*$/m.exec(r.out)?.[1];
  return r.code === 0 && id ? { ok: true, id } : { ok: false, result: r };
};

export const cancelJob = (id: string, env: Record<string, string>, signal?: string): Promise<CliResult> =>
  run(['scancel', ...(signal ? ['--batch', `--signal=${signal}`] : []), id], env);

/** The record of job `id` (an array task `123_4` is `JobId=124 ArrayJobId=123 ArrayTaskId=4`) in scontrol's one-line records, or null. */
const recordOf = (out: string, id: string): string | null => {
  const [array, task] = id.split('_');
  // Whole Key=Value words, never a pattern: a job id read from the journal is the workspace's text.
  const want = task === undefined ? [`JobId=${array}`] : [`ArrayJobId=${array}`, `ArrayTaskId=${task}`];
  return out.split('\n').find((l) => {
    const words = new Set(l.split(/\s+/));
    return want.every((w) => words.has(w));
  }) ?? null;
};

const showOne = async (id: string, env: Record<string, string>): Promise<string | null> => {
  const r = await run(['scontrol', 'show', 'job', '-o', id], env);
  // A pending array task is shown in its array's record (`ArrayTaskId=5-199%8`).
  const [array, task] = id.split('_');
  const mine = task === undefined ? r.out.includes(`JobId=${id}`) : r.out.includes(`ArrayJobId=${array} `);
  return r.code === 0 && mine ? r.out : null;
};

/**
 * Several jobs at once: one `scontrol show job -o` lists every job the controller knows, one
 * line each; a job not in it by its own record (a pending array task) is asked alone.
 */
const showMany = async (ids: string[], env: Record<string, string>): Promise<Map<string, string | null>> => {
  if (ids.length === 1) return new Map([[ids[0]!, await showOne(ids[0]!, env)]]);
  const r = await run(['scontrol', 'show', 'job', '-o'], env);
  const found = new Map(ids.map((id) => [id, r.code === 0 ? recordOf(r.out, id) : null]));
  await Promise.all(ids.filter((id) => found.get(id) === null).map(async (id) => found.set(id, await showOne(id, env))));
  return found;
};

const showGathered = gatherer(50, 500, showMany);

/**
 * `scontrol show job -o <id>`: one line of Key=Value, or null when Slurm no longer knows it.
 * Jobs asked within 50 ms of each other on one cluster share one call (gather.ts): an array's
 * tasks ending in one tick are one scontrol, not one each.
 */
export const showJob = async (id: string, env: Record<string, string>): Promise<string | null> => (await showGathered(id, env)).get(id) ?? null;

/** The live `%T` of a job array: how many of its tasks may run at once (docs/scale-out.md, Arrays). */
export const setArrayThrottle = (arrayId: string, throttle: number, env: Record<string, string>): Promise<CliResult> =>
  run(['scontrol', 'update', `JobId=${arrayId}`, `ArrayTaskThrottle=${throttle}`], env);

/** Every job of this user the controller still knows (finished ones until MinJobAge). */
export const listJobs = async (env: Record<string, string>): Promise<SqueueRow[] | { error: string }> => {
  const r = await run(['squeue', '-h', '--me', '-t', 'all', '-o', SQUEUE_FORMAT], env);
  if (r.code !== 0) return { error: (r.err || r.out).trim().split('\n')[0] || `squeue exited ${r.code}` };
  return parseSqueue(r.out);
};

/** `sacct` of these jobs (accounting.ts reads it); the raw answer, its errors included. */
export const accountJobs = (ids: readonly string[], env: Record<string, string>): Promise<CliResult> => {
  const [cmd, ...args] = sacctArgs(ids);
  return run([cmd!, ...args], env);
};
let polls = 0;
/** squeue calls made by the shared poll loops of this process (the arrays bench and its test count them). */
export const queuePolls = (): number => polls;

type Listener = (rows: Map<string, SqueueRow> | { error: string }) => void;

/** One poll loop per cluster; watchers get the whole table each time. */
class SlurmQueue {
  private readonly listeners = new Set<Listener>();
  private timer: NodeJS.Timeout | null = null;
  private busy = false;

  constructor(
    private readonly env: Record<string, string>,
    private readonly pollMs: number,
  ) {}

  watch(fn: Listener): () => void {
    this.listeners.add(fn);
    if (!this.timer) {
      this.timer = setInterval(() => void this.poll(), this.pollMs);
      void this.poll();
    }
    return () => {
      this.listeners.delete(fn);
      if (this.listeners.size === 0 && this.timer) {
        clearInterval(this.timer);
        this.timer = null;
      }
    };
  }

  private async poll(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      polls++;
      const rows = await listJobs(this.env);
      const table = 'error' in rows ? rows : new Map(rows.map((r) => [r.id, r]));
      for (const fn of [...this.listeners]) fn(table);
    } finally {
      this.busy = false;
    }
  }
}

const queues = new Map<string, SlurmQueue>();

/** The shared poll loop of the cluster this environment names. */
export const queueFor = (env: Record<string, string>, pollMs: number): SlurmQueue => {
  const key = `${env.SLURM_CONF ?? ''}|${env.SLURM_CLUSTERS ?? ''}|${pollMs}`;
  let q = queues.get(key);
  if (!q) {
    q = new SlurmQueue(env, pollMs);
    queues.set(key, q);
  }
  return q;
};
