import { accountJobs, showJob } from './slurm-cli.js';
import { gatherer } from './gather.js';
import { ACCOUNTING_OFF, parseSacct, parseSlurmTime, sacctUnfinished } from './sacct.js';
import { startedOf, type JobFinished, type JobStarted } from './job-facts.js';

// A Slurm job's facts apart from its exit (docs/scale-out.md, Queue time and Accounting): its
// start from scontrol when the shared poll did not show it (slurm.ts), its accounting from sacct once it is over. slurmdbd records a job's end
// a moment after the controller ends it, so sacct is asked again a few times, bounded, while it
// still says RUNNING; without slurmdbd sacct says so and checkroom keeps its own figures.

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** How long a job's accounting read waits for others to share its sacct call. */
export const SACCT_GATHER_MS = 50;

/**
 * `sacct` of this job, asked together with every other job of the same cluster whose read
 * comes within SACCT_GATHER_MS: jobs that end in one poll tick (an array's tasks, a batch) are
 * one sacct call, not one each (the arrays bench counted 200 calls for 200 cells). Each reader
 * takes its own job's line from the shared answer.
 */
export const accountGathered = gatherer(SACCT_GATHER_MS, 200, accountJobs);

export const slurmStarted = async (id: string, env: Record<string, string>): Promise<JobStarted | null> => {
  const shown = await showJob(id, env);
  return shown ? startedOf(shown, parseSlurmTime) : null;
};

/** The first line of sacct's complaint, for "accounting is off (…)". */
const firstLine = (text: string): string => text.trim().split('\n')[0]?.slice(0, 200) ?? '';

export const slurmFinished = async (id: string, env: Record<string, string>, node: string | null, o: { tries?: number; gapMs?: number } = {}): Promise<JobFinished> => {
  const tries = o.tries ?? 20;
  for (let i = 0; ; i++) {
    const r = await accountGathered(id, env);
    if (r.code !== 0 || ACCOUNTING_OFF.test(r.err)) {
      const why = firstLine(r.err || r.out) || `sacct exited ${r.code}`;
      return { accounting: 'off', note: `sacct: ${why}`, node };
    }
    const a = parseSacct(r.out).get(id);
    if (a && !sacctUnfinished(a.state)) return { accounting: 'sacct', account: a };
    if (i + 1 >= tries) return { accounting: 'off', note: a ? `sacct still says ${a.state} for job ${id}` : `sacct does not list job ${id}`, node };
    await sleep(o.gapMs ?? 500);
  }
};
