import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { setArrayThrottle, submitJob, type CliResult, type Submitted } from './slurm-cli.js';
import { slurmSignal, slurmTime } from './slurm-state.js';
import { arraysDir, writeManifest } from './slurm-manifest.js';
import { statusPathOf, workspaceTag } from './slurm-wrapper.js';
import type { ExecutorSpec } from './types.js';

// Ready cells of one step go out as ONE Slurm job array (docs/scale-out.md, Arrays): the
// starts that reach the executor close together (autopilot's pick, `run --next --auto`, a
// bulk relaunch: every entry point ends in executor.start) wait a short window, then one
// `sbatch --array=0-N%T` carries them, T being the agent's concurrency. A start alone in its
// window is a plain job, so a retry of one task is a new single job, never the whole array.
// Each task is still its own cell: its own run id, log, exit file and job id (`<array>_<task>`).

/** How long a start waits for others of its step, and at most in all (ms): a second is nothing
 *  next to a queue polled every second, and a loaded machine marks a batch of cells slowly. */
export const ARRAY_WINDOW_MS = 1_000;
export const ARRAY_MAX_WAIT_MS = 5_000;

interface Waiting {
  spec: ExecutorSpec;
  resolve: (s: Submitted) => void;
}

interface Group {
  items: Waiting[];
  timer: NodeJS.Timeout | null;
  firstAt: number;
}

const groups = new Map<string, Group>();

/** Starts share an array when everything sbatch is told but the task's own line is the same. */
const groupKey = (s: ExecutorSpec): string =>
  createHash('sha256')
    .update(JSON.stringify([s.root, s.agent.name, s.step, s.timeoutMs, s.graceMs, s.agent.slurm, Object.entries(s.env).sort()]))
    .digest('hex');

let serial = 0;
const arrayName = (spec: ExecutorSpec): string => `${spec.step.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 24)}-${Date.now().toString(36)}-${process.pid}-${++serial}`;

/** An array's comment: its workspace and the manifest that maps its tasks to cells. */
export const arrayComment = (root: string, name: string): string => `checkroom ws=${workspaceTag(root)} array=${name}`;

/** `checkroom ws=<tag> array=<name>` → its parts, or null. */
export const parseArrayComment = (comment: string): { ws: string; name: string } | null => {
  const m = /^checkroom ws=(\S+) array=([A-Za-z0-9_.-]+)/.exec(comment);
  return m ? { ws: m[1]!, name: m[2]! } : null;
};

/** Slurm reads '%' in --output as a pattern; '%%' is a literal '%'. */
const literalPath = (p: string): string => p.replace(/%/g, '%%');

/** The sbatch arguments of one array (pure; tested as is). */
export const arraySbatchArgs = (first: ExecutorSpec, o: { name: string; count: number; throttle: number; wrapper: string; manifest: string }): string[] => {
  const sl = first.agent.slurm;
  return [
    `--array=0-${o.count - 1}%${Math.max(1, o.throttle)}`,
    `--job-name=checkroom-${o.name}`,
    `--comment=${arrayComment(first.root, o.name)}`,
    // Each task writes its own cell's log (the script's exec); this file only ever holds what
    // failed before the task found its line.
    `--output=${literalPath(join(arraysDir(first.root), `${o.name}.out`))}`,
    '--open-mode=append',
    `--chdir=${first.root}`,
    `--time=${slurmTime(first.timeoutMs)}`,
    `--signal=${slurmSignal(first.graceMs)}`,
    '--no-requeue',
    ...(sl.partition ? [`--partition=${sl.partition}`] : []),
    ...(sl.account ? [`--account=${sl.account}`] : []),
    ...sl.extraArgs,
    o.wrapper,
    o.manifest,
  ];
};

/** Arrays with tasks still in flight, by agent: their `%T` follows the agent's concurrency. */
const live = new Map<string, { env: Record<string, string>; open: Map<string, number> }>();
const liveKey = (root: string, agent: string): string => `${root}\0${agent}`;

/** Count a task of an array in flight (a submit, or an adoption after a restart). */
export const holdArray = (spec: ExecutorSpec, jobId: string): (() => void) => {
  const array = jobId.split('_')[0]!;
  if (!jobId.includes('_')) return () => undefined;
  const k = liveKey(spec.root, spec.agent.name);
  const entry = live.get(k) ?? { env: spec.env, open: new Map<string, number>() };
  live.set(k, entry);
  entry.open.set(array, (entry.open.get(array) ?? 0) + 1);
  let done = false;
  return () => {
    if (done) return;
    done = true;
    const n = (entry.open.get(array) ?? 1) - 1;
    if (n <= 0) entry.open.delete(array);
    else entry.open.set(array, n);
  };
};

/** `scontrol update … ArrayTaskThrottle=<n>` on every array of the agent with tasks in flight. */
export async function throttleArrays(root: string, agent: string, n: number): Promise<{ arrays: string[]; failed: { id: string; why: string }[] }> {
  const entry = live.get(liveKey(root, agent));
  const arrays = [...(entry?.open.keys() ?? [])];
  const failed: { id: string; why: string }[] = [];
  for (const id of arrays) {
    const r: CliResult = await setArrayThrottle(id, n, entry!.env);
    if (r.code !== 0) failed.push({ id, why: (r.err || r.out).trim().split('\n')[0] ?? `exit ${r.code}` });
  }
  return { arrays, failed };
}

type SubmitOne = (spec: ExecutorSpec) => Promise<Submitted>;

async function flush(key: string, submitOne: SubmitOne): Promise<void> {
  const g = groups.get(key);
  if (!g) return;
  groups.delete(key);
  if (g.timer) clearTimeout(g.timer);
  const items = g.items;
  if (items.length === 1) {
    items[0]!.resolve(await submitOne(items[0]!.spec));
    return;
  }
  const first = items[0]!.spec;
  const name = arrayName(first);
  let sub: Submitted;
  try {
    const tasks = items.map(({ spec: s }) => ({ runId: s.runId, unit: s.unit, step: s.step, logPath: s.logPath, statusPath: statusPathOf(s.logPath), cwd: s.cwd, argv: s.argv }));
    const { manifest, wrapper } = await writeManifest(first.root, name, tasks);
    sub = await submitJob(arraySbatchArgs(first, { name, count: items.length, throttle: first.agent.concurrency, wrapper, manifest }), first.env);
  } catch (err) {
    sub = { ok: false, result: { code: 1, out: '', err: `cannot write the array's task list: ${(err as Error).message}` } };
  }
  items.forEach((w, i) => w.resolve(sub.ok ? { ok: true, id: `${sub.id}_${i}` } : sub));
}

/**
 * Submit this start with the others of its step that arrive within the window: resolves with
 * its own task's id (`<array>_<index>`), or a plain job id when it was alone.
 */
export const submitInArray = (spec: ExecutorSpec, submitOne: SubmitOne, maxTasks: number): Promise<Submitted> =>
  new Promise((resolve) => {
    const key = groupKey(spec);
    const now = Date.now();
    const g = groups.get(key) ?? { items: [], timer: null, firstAt: now };
    groups.set(key, g);
    g.items.push({ spec, resolve });
    if (g.timer) clearTimeout(g.timer);
    if (g.items.length >= maxTasks) {
      void flush(key, submitOne);
      return;
    }
    const wait = Math.max(0, Math.min(ARRAY_WINDOW_MS, g.firstAt + ARRAY_MAX_WAIT_MS - now));
    g.timer = setTimeout(() => void flush(key, submitOne), wait);
  });
