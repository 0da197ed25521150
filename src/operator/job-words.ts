import type { CellJob } from '../run/journal/ledger.js';
import { duration } from './words.js';

// A cell's cluster jobs in words, the same in the cell detail and Health (docs/scale-out.md):
// where the job ran, how long it queued apart from how long it ran, Slurm's accounting when
// slurmdbd keeps it ("accounting is off" when not), and the node that failed under an earlier
// attempt. The words from the scheduler are raw here; the views escape them where they draw.

/** "64.6 MiB" from KiB. */
export const rssWords = (kib: number): string => (kib < 1024 ? `${kib} KiB` : kib < 1024 * 1024 ? `${(kib / 1024).toFixed(1)} MiB` : `${(kib / 1024 / 1024).toFixed(2)} GiB`);

const known = (ms: number | null, word: string): string | null => (ms === null ? null : `${word} ${duration(ms)}`);

/** "slurm job 14 on n2 · queued 2 s · ran 5 s"; an INFRA end says so with Slurm's state ("INFRA NODE_FAIL"). */
export const jobLine = (j: CellJob): string => {
  const infra = j.class === 'INFRA' ? `INFRA${j.account?.accounting === 'sacct' ? ` ${j.account.state}` : ''}` : null;
  return [`${j.executor} job ${j.jobId}${j.node ? ` on ${j.node}` : ''}`, infra, known(j.queueWaitMs, 'queued'), known(j.runMs, 'ran')].filter((x) => x !== null).join(' · ');
};

/** Slurm's accounting of a finished job, or why there is none. */
export const accountLine = (j: CellJob): string | null => {
  const a = j.account;
  if (!a) return null;
  // Checkroom's own figures first: they are what the operator has without accounting.
  if (a.accounting === 'off') return `accounting is off · own figures: ${[known(j.queueWaitMs, 'queued'), known(j.runMs, 'ran')].filter(Boolean).join(', ') || 'none yet'} · ${a.note}`;
  // The node is the job row's (sacct's NodeList when it finished).
  return [a.state, a.elapsedMs === null ? null : `elapsed ${duration(a.elapsedMs)}`, a.maxRssKiB === null ? 'max RSS not reported' : `max RSS ${rssWords(a.maxRssKiB)}`, `exit ${a.exitCode}`]
    .filter((x) => x !== null)
    .join(' · ');
};

/** The detail's rows: the latest job, its accounting, then the earlier jobs newest first. */
export const jobRows = (jobs: readonly CellJob[]): [string, string][] => {
  const last = jobs.at(-1);
  if (!last) return [];
  const acct = accountLine(last);
  return [
    ['job', jobLine(last)],
    ...(acct ? [['sacct', acct] as [string, string]] : []),
    ...jobs
      .slice(0, -1)
      .reverse()
      .map((j) => ['earlier', jobLine(j)] as [string, string]),
  ];
};
