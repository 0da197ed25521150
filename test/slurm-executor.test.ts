import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../src/pipeline/config.js';
import { readJournal, type JournalEvent, type LaunchEvent } from '../src/run/journal.js';
import { openSupervisor, type Supervisor, type SupervisorEvent } from '../src/run/supervisor.js';
import { slurmMissing, startSlurm, type SlurmCluster } from './helpers/slurm.js';
import { slurmWorkspace } from './helpers/slurm-ws.js';

// Agents as jobs of a real one-node Slurm started for this file (issue 12): sbatch, squeue,
// scancel against real daemons; nothing is mocked.

const missing = slurmMissing();
if (missing) console.warn(`skipping the Slurm tests: ${missing}`);

let cluster: SlurmCluster;
beforeAll(async () => {
  if (missing) return;
  cluster = await startSlurm();
  process.env.SLURM_CONF = cluster.conf;
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
}, 60_000);

const open: Supervisor[] = [];
const start = async (root: string, events: SupervisorEvent[] = []): Promise<Supervisor> => {
  const s = await openSupervisor({ root, config: await loadConfig(root), rand: () => 0.5, onEvent: (e) => events.push(e) });
  open.push(s);
  return s;
};
afterEach(async () => {
  for (const s of open.splice(0)) await s.close({ cancel: true });
});

const journal = async (root: string): Promise<JournalEvent[]> => (await readJournal(root)).events;
const launches = (ev: JournalEvent[]) => ev.filter((e): e is LaunchEvent => e.type === 'launch');
const exits = (ev: JournalEvent[]) => ev.filter((e): e is Extract<JournalEvent, { type: 'exit' }> => e.type === 'exit');
const jobState = (id: string): string => /JobState=(\S+)/.exec(cluster.run(['scontrol', 'show', 'job', '-o', id]).out)?.[1] ?? 'gone';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const until = async (what: string, ok: () => boolean | Promise<boolean>, ms = 60_000): Promise<void> => {
  for (const t0 = Date.now(); Date.now() - t0 < ms; await sleep(100)) if (await ok()) return;
  throw new Error(`timed out waiting for ${what}`);
};

describe.skipIf(missing)('Slurm executor on a real local cluster', () => {
  it('a step runs as a Slurm job to ✅: the job id is journalled, the log is the job output', async () => {
    const root = slurmWorkspace();
    const s = await start(root);
    const r = await s.launch('ch01', 'research');
    expect(r.outcome).toBe('done');
    const ev = await journal(root);
    const [l] = launches(ev);
    expect(l.executor).toBe('slurm');
    expect(l.jobId).toMatch(/^\d+$/);
    expect(l.pid).toBeNull();
    expect(exits(ev).map((e) => e.class)).toEqual(['SUCCESS']);
    const log = readFileSync(l.logPath, 'utf8');
    expect(log).toContain(`Slurm job ${l.jobId}`);
    expect(log).toContain('[researcher ch01] starting research');
    expect(readFileSync(join(root, 'research/ch01-research.md'), 'utf8').trimEnd().split('\n').pop()).toBe('<!-- RESEARCH_COMPLETE -->');
    expect(cluster.run(['scontrol', 'show', 'job', '-o', l.jobId!]).out).toContain(`JobName=checkroom-${l.runId}`);
  }, 90_000);
});
