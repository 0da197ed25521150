import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from '../helpers/workspace.js';
import { loadConfig } from '../../src/pipeline/config/config.js';
import { readJournal, type JournalEvent } from '../../src/run/journal/journal.js';
import { openSupervisor, type SupervisorEvent } from '../../src/run/supervisor/supervisor.js';
import { jobStateOf, slurmForFile, until } from '../helpers/slurm.js';
import { slurmWorkspace } from '../helpers/slurm-ws.js';

// Issue 17 item 7 on a real Slurm: stopping has a bound whatever the scheduler does. Before,
// with the controller down, `checkroom run` sent one scancel on SIGTERM, never retried it,
// and waited on for as long as the controller stayed away; an in-flight job showed the
// squeue error forever and never became INFRA.

const BIN = join(REPO, 'dist', 'bundle', 'checkroom.js');

const { missing, cluster } = slurmForFile(beforeAll, afterAll);

type Ev<T extends JournalEvent['type']> = Extract<JournalEvent, { type: T }>;
const of = async <T extends JournalEvent['type']>(root: string, t: T): Promise<Ev<T>[]> => (await readJournal(root)).events.filter((e): e is Ev<T> => e.type === t);
const jobState = (id: string): string => jobStateOf(cluster(), id);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(missing)('bounded stop with the Slurm controller down', () => {
  it('SIGTERM ends checkroom run within its bound; the next start asks for the stop again until it lands, and holds nothing', async () => {
    // A slow agent (an hour of work) so only a stop can end it.
    const root = slurmWorkspace({ researcher: '[sleep, "3600"]', slurm: '{ poll: 500ms, infra_timeout: 1s }' });
    const child = spawn(process.execPath, [BIN, 'run', root, '--yes', '--', 'ch01', 'research'], { env: { ...cluster().env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    await until('the job running', async () => {
      const l = (await of(root, 'launch'))[0];
      return !!l?.jobId && jobState(l.jobId) === 'RUNNING';
    });
    const launch = (await of(root, 'launch'))[0]!;
    await cluster().kill('slurmctld');
    child.kill('SIGTERM');
    // The bound is 15 s plus the agent's grace (1 s); 90 s here only catches "never".
    const code = await Promise.race([exited, sleep(90_000).then(() => 'hung' as const)]);
    if (code === 'hung') child.kill('SIGKILL');
    expect(code, out).toBe(143);
    expect(out).toMatch(/interrupted \(SIGTERM\)/);
    expect((await of(root, 'decision')).filter((d) => d.kind === 'stop_pending')).toMatchObject([{ unit: 'ch01', step: 'research', note: launch.runId }]);

    await cluster().restartController();
    const events: SupervisorEvent[] = [];
    const s = await openSupervisor({ root, config: await loadConfig(root), onEvent: (e) => events.push(e) });
    try {
      await until('the adopted job cancelled', async () => (await of(root, 'exit')).length === 1, 90_000).catch(async (e) => {
        throw new Error(`${(e as Error).message}: ${JSON.stringify(events.map((x) => x.message))} ${JSON.stringify((await readJournal(root)).events.slice(-6))} ${jobState(launch.jobId!)}`);
      });
      expect(events.some((e) => e.type === 'notice' && /had not landed when the last checkroom ended/.test(e.message))).toBe(true);
      expect((await of(root, 'exit'))[0]).toMatchObject({ runId: launch.runId, class: 'CANCELLED', cancelledBy: 'shutdown' });
      expect(jobState(launch.jobId!)).toMatch(/CANCELLED|gone/);
      // A shutdown's cancel is no hold: run --next may take the cell again.
      expect(s.snapshot().ledger.cells['ch01/research']!.hold).toBeNull();
      expect(await of(root, 'launch')).toHaveLength(1);
    } finally {
      await s.close({ cancel: true });
    }
  }, 240_000);

  it('a controller silent past infra_timeout shows the in-flight job INFRA; when it answers again the job is carried on, never resubmitted', async () => {
    // A job at work for a minute, so it is still running while the controller is away (squeue
    // takes its own time to give up on a dead controller), then done by its marker.
    const root = slurmWorkspace({ researcher: '[node, slow.mjs, "{output}"]', idle: '300s', slurm: '{ poll: 500ms, infra_timeout: 1s }' });
    writeFileSync(
      join(root, 'slow.mjs'),
      "import { mkdirSync, writeFileSync } from 'node:fs';\nimport { dirname } from 'node:path';\n" +
        "setTimeout(() => { mkdirSync(dirname(process.argv[2]), { recursive: true }); writeFileSync(process.argv[2], '# ch01\\n\\n' + 'notes. '.repeat(200) + '\\n\\n<!-- RESEARCH_COMPLETE -->\\n'); }, 60_000);\n",
    );
    const s = await openSupervisor({ root, config: await loadConfig(root), rand: () => 0.5 });
    try {
      const r = s.launch('ch01', 'research');
      await until('the job running', async () => {
        const l = (await of(root, 'launch'))[0];
        return !!l?.jobId && jobState(l.jobId) === 'RUNNING';
      });
      await cluster().kill('slurmctld');
      const seen = new Set<string>();
      await until('the run shown INFRA', () => {
        const why = s.snapshot().runs[0]?.why ?? `(runs: ${s.snapshot().runs.length})`;
        seen.add(why);
        return /^INFRA: the controller has not answered for \d+ s \(squeue: /.test(why);
      }, 90_000).catch((e: Error) => {
        throw new Error(`${e.message}; seen: ${JSON.stringify([...seen])}`);
      });
      await cluster().restartController();
      expect((await r).outcome).toBe('done');
      expect(await of(root, 'launch')).toHaveLength(1);
      expect((await of(root, 'exit')).map((e) => e.class)).toEqual(['SUCCESS']);
    } finally {
      await s.close({ cancel: true });
    }
  }, 240_000);
});
