import { executorNamed, runIdsAsJobs, scheduledAgent } from '../executors/registry.js';
import type { SchedulerJob } from '../executors/types.js';
import type { ExecutorName } from '../../pipeline/config/types.js';
import { readJournal, type NewJournalEvent } from '../journal/journal.js';
import { logPathOf, runIdPart, targetOf } from '../attempt/launch-spec.js';
import { assertInside } from '../../fs/confine-path.js';
import { cellKey } from '../../types.js';
import type { Emitter, JournalPort, WorkspaceRef } from './ports.js';

// A submission's window (docs/reliability.md, kill -9): a cell's launch is journalled once its
// executor has the job id, so a checkroom killed between the scheduler's answer and that
// write leaves a job no journal line records. It was never submitted twice (the scheduler's
// source sees it and the marker decides), but nothing watched it: no log follow, no exit, no
// accounting. A new driver asks the scheduler once for this workspace's jobs (each carries its
// run id in its comment or label) and journals the launch of each one no line records, so the
// adoption that follows watches it to its end like any other.

/** Run ids as launch-spec.ts newRunId makes them: `<unit>-<step>-a<attempt>-<base36 ms>-<6 hex>`. */
const RUN_ID = /^[A-Za-z0-9_.-]{1,100}-a(\d{1,4})-([0-9a-z]{1,12})-[0-9a-f]{6}$/;

/** The attempt and launch time a run id of this cell names, or null when it is not one of ours. */
export const runIdParts = (runId: string, unit: string, step: string): { attempt: number; at: number } | null => {
  const m = RUN_ID.exec(runId);
  if (!m || !runId.startsWith(`${runIdPart(unit)}-${runIdPart(step)}-a`) || runId.includes('..')) return null;
  const attempt = Number(m[1]);
  const at = parseInt(m[2]!, 36);
  return attempt >= 1 && Number.isSafeInteger(at) ? { attempt, at } : null;
};

type Core = WorkspaceRef & JournalPort & Emitter;

/** The launch a found job stands for, or why it is left alone. */
function launchOf(core: Core, j: SchedulerJob, executor: ExecutorName, lastLaunch: ReadonlyMap<string, number>): NewJournalEvent | string {
  const parts = runIdParts(j.runId, j.unit, j.step);
  if (!parts) return `its run id is not one checkroom makes`;
  let t;
  try {
    t = targetOf(core.root, core.config, j.unit, j.step);
  } catch {
    return 'its cell is not in checkroom.yaml';
  }
  if (t.agent.executor !== executor) return `its step's agent no longer runs on ${executor}`;
  const key = cellKey(j.unit, j.step);
  if (core.ledger().cells[key]?.runId) return 'its cell has a run in flight';
  // A launch of the cell after this job's: the job is an earlier attempt, superseded.
  if ((lastLaunch.get(key) ?? -Infinity) >= parts.at) return 'its cell was launched again since';
  const at = Math.min(parts.at, core.now());
  const logPath = assertInside('append', logPathOf(core.root, j.runId), [core.root]);
  // argv is not known (the job has it, the journal never did): recorded empty, not guessed.
  return { type: 'launch', at, runId: j.runId, unit: j.unit, step: j.step, agent: t.agent.name, attempt: parts.attempt, argv: [], cwd: core.root, logPath, pid: null, procStart: null, outputPath: t.outputAbs, executor, jobId: j.id };
}

/**
 * Journal the launch of every job of this workspace that the scheduler has and the journal
 * does not (a kill -9 inside a submission's window). One line for the operator, or null.
 */
export async function journalUnrecordedJobs(core: Core): Promise<string | null> {
  const first = scheduledAgent(core.config);
  if (!first) return null;
  const hook = executorNamed(first.name).scheduler!;
  const jobs = await hook.jobs(core.root, first.agent).catch((err: Error) => ({ error: err.message }));
  // No job of this workspace (the usual start): nothing to match, the journal is not read again.
  if ('error' in jobs || jobs.length === 0) return null;
  const launches = (await readJournal(core.root)).events.filter((e) => e.type === 'launch');
  const known = runIdsAsJobs(hook, launches.map((e) => e.runId));
  const lastLaunch = new Map<string, number>();
  for (const e of launches) {
    const key = cellKey(e.unit, e.step);
    lastLaunch.set(key, Math.max(lastLaunch.get(key) ?? -Infinity, e.at));
  }
  const found: string[] = [];
  const left: string[] = [];
  for (const j of jobs) {
    if (known.has(j.runId)) continue;
    known.add(j.runId);
    const launch = launchOf(core, j, first.name, lastLaunch);
    if (typeof launch === 'string') {
      left.push(`${j.unit} ${j.step} (job ${j.id}: ${launch})`);
      continue;
    }
    await core.append(launch);
    found.push(`${j.unit} ${j.step} (job ${j.id})`);
  }
  const parts = [
    ...(found.length ? [`found ${found.length} job${found.length === 1 ? '' : 's'} submitted just before the last checkroom ended and never journalled: ${found.join(', ')} — recorded and adopted`] : []),
    ...(left.length ? [`left ${left.length} unjournalled job${left.length === 1 ? '' : 's'} alone: ${left.join(', ')}`] : []),
  ];
  return parts.length ? parts.join('; ') : null;
}
