import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { listBackups } from '../../../../src/backups/backups.js';
import { loadConfig } from '../../../../src/pipeline/config/config.js';
import { replayJournal } from '../../../../src/run/journal/ledger-fold.js';
import type { JobJournalEvent } from '../../../../src/run/journal/job-events.js';
import type { JournalEvent, LaunchEvent } from '../../../../src/run/journal/journal.js';
import { jobRows } from '../../../../src/operator/job-words.js';
import type { SupervisorEvent } from '../../../../src/run/supervisor/supervisor.js';
import { exits, journal, launches, supervisorsForEach, until } from '../../../helpers/slurm.js';
import { nodesMissing, startTwoNodes, type TwoNodes } from '../../../helpers/slurm-nodes.js';
import { slurmWorkspace } from '../../../helpers/slurm-ws.js';

// Two Slurm nodes for real (issue 22 items 1, 2, 6): slurmctld, slurmdbd on a MariaDB of the
// test's own, and two slurmd each in a network namespace (test/helpers/slurm-nodes.ts). A node
// dies under a running job; Slurm's word for it (NODE_FAIL), the executor's breaker, the marker
// and the journal decide the rest. docs/scale-out.md, Two nodes, Accounting, Queue time.

const SLOW_WRITER = join(import.meta.dirname, '..', '..', '..', 'fixtures', 'slurm', 'slow-writer.mjs');
const missing = nodesMissing({ accounting: true });
if (missing) console.warn(`skipping the two-node Slurm tests: ${missing}`);

let cluster: TwoNodes | null = null;
beforeAll(async () => {
  if (missing) return;
  cluster = await startTwoNodes({ accounting: true });
  process.env.SLURM_CONF = cluster.conf;
}, 180_000);
afterAll(async () => {
  await cluster?.stop();
}, 120_000);

const start = supervisorsForEach(afterEach);
const readText = (p: string): string => {
  try {
    return readFileSync(p, 'utf8');
  } catch {
    return '';
  }
};
const jobEvents = (ev: JournalEvent[]): JobJournalEvent[] => ev.filter((e): e is JobJournalEvent => e.type === 'job');

describe.skipIf(missing)('two Slurm nodes in network namespaces, with slurmdbd', () => {
  it('a node dies mid-job: NODE_FAIL read from Slurm, INFRA on slurm:infra only, rerun on the other node, the marker written once, the node named', async () => {
    const c = cluster!;
    const root = slurmWorkspace({
      researcher: `[node, ${JSON.stringify(SLOW_WRITER)}, '{output}', '{marker}', '{attempt}']`,
      idle: '2m',
      limits: ['  backoff_base: 100ms', '  backoff_max: 500ms'],
      breaker: '{ threshold: 5, cooldown: 1s }',
    });
    const events: SupervisorEvent[] = [];
    const s = await start(root, events);
    const done = s.launch('ch01', 'research');
    // Mid-job: the first lines are on disk, the marker is not.
    let first: LaunchEvent | undefined;
    await until('the first job writing', async () => {
      first = launches(await journal(root))[0];
      return !!first?.jobId && /line 2\n/.test(readText(first.outputPath!));
    }, 120_000);
    const out = first!.outputPath!;
    const died = c.nodeOf(first!.jobId!);
    expect(['n1', 'n2']).toContain(died);
    expect(c.killNode(died).length).toBeGreaterThan(1);
    const r = await done;
    expect(r.outcome).toBe('done');

    const ev = await journal(root);
    const config = await loadConfig(root);
    // The job's fate is Slurm's: NODE_FAIL (sacct says so too), classed INFRA, naming the node.
    expect(exits(ev).map((e) => e.class)).toEqual(['INFRA', 'SUCCESS']);
    expect(exits(ev)[0]!.error).toMatch(new RegExp(`Slurm NODE_FAIL.* on node ${died}`));
    expect(c.stateOf(died)).toMatch(/down/);
    const [second] = launches(ev).slice(1);
    const other = died === 'n1' ? 'n2' : 'n1';
    expect(c.nodeOf(second!.jobId!)).toBe(other);
    // The executor's breaker counted it; the agent's never saw a failure.
    // (The journal up to the INFRA exit: the success after it closes the executor's breaker again.)
    const cut = ev.indexOf(exits(ev)[0]!) + 1;
    const atFail = replayJournal(ev.slice(0, cut), Date.now(), { breaker: config.breaker, limits: config.limits });
    expect(atFail.agents['slurm:infra']!.breaker.consecutiveFailures).toBe(1);
    expect(atFail.agents.researcher!.breaker.consecutiveFailures).toBe(0);
    expect(atFail.consecutiveFailures).toBe(0);
    const ledger = replayJournal(ev, Date.now(), { breaker: config.breaker, limits: config.limits });
    expect(ledger.agents.researcher!.breaker.consecutiveFailures).toBe(0);
    expect(events.filter((e) => e.type === 'breaker' && e.agent === 'researcher')).toEqual([]);
    expect(ledger.consecutiveFailures).toBe(0);

    // The marker decides, once: the output is the second attempt's alone, its marker on the
    // last line and nowhere else; the half-product of the dead node is in a backup, without one.
    const text = readFileSync(out, 'utf8');
    expect(text.startsWith('# research (attempt 2)\n')).toBe(true);
    expect(text.match(/<!-- /g)).toHaveLength(1);
    expect(text.match(/^line 1$/gm)).toHaveLength(1);
    const backups = await listBackups(root, relative(root, out));
    expect(backups).toHaveLength(1);
    const half = readFileSync(join(root, backups[0]!.path), 'utf8');
    expect(half.startsWith('# research (attempt 1)\n')).toBe(true);
    expect(half).not.toContain('<!--');

    // The journal: each job started (node, queue wait) and finished (sacct, once per job).
    let jobs: JobJournalEvent[] = [];
    await until('both jobs accounted', async () => {
      jobs = jobEvents(await journal(root));
      return jobs.filter((e) => e.phase === 'finished').length === 2;
    });
    const finished = jobs.filter((e) => e.phase === 'finished');
    expect(finished.map((e) => e.jobId)).toEqual([first!.jobId, second!.jobId]);
    expect(finished.map((e) => [e.accounting, e.state, e.node])).toEqual([
      ['sacct', 'NODE_FAIL', died],
      ['sacct', 'COMPLETED', other],
    ]);
    expect(finished[1]!.exitCode).toBe('0:0');
    expect(finished[1]!.maxRssKiB).toBeGreaterThan(1000);
    expect(finished[1]!.elapsedMs).toBeGreaterThanOrEqual(4000);
    const started = jobs.filter((e) => e.phase === 'started');
    expect(started.map((e) => e.node)).toEqual([died, other]);
    for (const e of started) expect(e.queueWaitMs).toBeGreaterThanOrEqual(0);
    // The exit carries the queue wait, so the run time is apart from it.
    expect(exits(ev).every((e) => typeof e.queueWaitMs === 'number')).toBe(true);

    // What the operator reads (the cell detail's rows, Health's first): the node, the
    // accounting, and the earlier job the node died under.
    const after = replayJournal(await journal(root), Date.now(), { breaker: config.breaker, limits: config.limits });
    const rows = jobRows(after.cells['ch01/research']!.jobs);
    expect(rows[0]).toEqual(['job', expect.stringMatching(new RegExp(`^slurm job ${second!.jobId} on ${other} · queued \\d+ s · ran \\d+ s$`))]);
    expect(rows[1]).toEqual(['sacct', expect.stringMatching(new RegExp(`^COMPLETED · elapsed \\d+ s · max RSS [\\d.]+ MiB · exit 0:0$`))]);
    expect(rows[2]).toEqual(['earlier', expect.stringMatching(new RegExp(`^slurm job ${first!.jobId} on ${died} · INFRA NODE_FAIL · queued \\d+ s · ran \\d+ s$`))]);
  }, 240_000);
});
