// Slurm's accounting of a finished job, read from sacct (docs/scale-out.md, Accounting).
// `sacct --parsable2 --noheader -o <fields>` prints one line per job and one per step, the
// fields split by '|' with no trailing one (sacct(1), --parsable2). The allocation's line
// (JobID "12") carries the job's state, times and node list; MaxRSS is a step's figure
// ("12.batch"), so the job's is the largest of its steps'. Everything here is untrusted
// text from the scheduler: the words are kept as text and sanitized where they are drawn.

export const SACCT_FIELDS = ['JobID', 'State', 'Elapsed', 'MaxRSS', 'ExitCode', 'NodeList', 'Start', 'End', 'Submit'] as const;

/** The argument array (never a shell string) that asks for these jobs. */
export const sacctArgs = (ids: readonly string[]): string[] => ['sacct', '--parsable2', '--noheader', '-j', ids.join(','), '-o', SACCT_FIELDS.join(',')];

export interface JobAccount {
  jobId: string;
  /** The first word of the state ("CANCELLED by 0" → CANCELLED). */
  state: string;
  elapsedMs: number | null;
  /** The largest MaxRSS of the job's steps, in KiB; null when no step reported one. */
  maxRssKiB: number | null;
  /** "exit:signal" as sacct prints it ("3:0"). */
  exitCode: string;
  /** null for "None assigned" (never ran). */
  node: string | null;
  submitAt: number | null;
  startAt: number | null;
  endAt: number | null;
}

/** Elapsed as sacct prints it: [DD-[HH:]]MM:SS, with optional fractions ("1-02:03:04", "00:00:27"). */
export const parseElapsed = (text: string): number | null => {
  const m = /^(?:(\d+)-)?(?:(\d+):)?(\d+):(\d+(?:\.\d+)?)$/.exec(text.trim());
  if (!m) return null;
  const [d, h, min, s] = [Number(m[1] ?? 0), Number(m[2] ?? 0), Number(m[3]), Number(m[4])];
  return Math.round(((d * 24 + h) * 60 + min) * 60_000 + s * 1000);
};

const UNIT = { '': 1 / 1024, K: 1, M: 1024, G: 1024 ** 2, T: 1024 ** 3, P: 1024 ** 4 } as const;

/** MaxRSS ("66192K", "1.50M", "0") in KiB; a bare number is bytes. */
export const parseRss = (text: string): number | null => {
  const m = /^(\d+(?:\.\d+)?)([KMGTP]?)$/i.exec(text.trim());
  return m ? Math.round(Number(m[1]) * UNIT[m[2]!.toUpperCase() as keyof typeof UNIT]) : null;
};

/** A Slurm time ("2026-12-02T07:03:05", the cluster's local time) in epoch ms; Unknown/None: null. */
export const parseSlurmTime = (text: string | undefined): number | null => {
  if (!text || !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/.test(text.trim())) return null;
  const t = new Date(text.trim()).getTime();
  return Number.isFinite(t) ? t : null;
};

/** Lines of sacct → one account per job id, steps folded into their job. */
export const parseSacct = (text: string): Map<string, JobAccount> => {
  const out = new Map<string, JobAccount>();
  const rss = new Map<string, number>();
  for (const line of text.split('\n')) {
    const f = line.replace(/\r$/, '').split('|');
    if (f.length !== SACCT_FIELDS.length) continue;
    const [id, state, elapsed, maxRss, exitCode, nodes, start, end, submit] = f as [string, string, string, string, string, string, string, string, string];
    const m = /^(\d+(?:_\d+)?)(?:\.(.+))?$/.exec(id);
    if (!m) continue;
    const job = m[1]!;
    const kib = parseRss(maxRss);
    if (kib !== null) rss.set(job, Math.max(rss.get(job) ?? 0, kib));
    if (m[2] !== undefined) continue;
    out.set(job, {
      jobId: job,
      state: state.trim().split(/\s+/)[0] ?? '',
      elapsedMs: parseElapsed(elapsed),
      maxRssKiB: null,
      exitCode: exitCode.trim(),
      node: nodes.trim() === '' || /^None/.test(nodes.trim()) ? null : nodes.trim(),
      submitAt: parseSlurmTime(submit),
      startAt: parseSlurmTime(start),
      endAt: parseSlurmTime(end),
    });
  }
  for (const [job, a] of out) a.maxRssKiB = rss.get(job) ?? null;
  return out;
};

/** sacct's answer when no accounting storage is configured: checkroom then keeps its own figures. */
export const ACCOUNTING_OFF = /accounting storage is disabled|slurmdbd|accounting_storage\/none|Problem talking to the database|Connection refused/i;

/** A state sacct reports before the job is over (the database lags the controller). */
export const sacctUnfinished = (state: string): boolean => /^(PENDING|RUNNING|REQUEUED|RESIZING|SUSPENDED|COMPLETING|CONFIGURING)$/.test(state);
