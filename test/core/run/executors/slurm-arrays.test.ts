import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../../../src/pipeline/config/config.js';
import { openSupervisor, type Supervisor, type SupervisorEvent } from '../../../../src/run/supervisor/supervisor.js';
import { queuePolls, showJob } from '../../../../src/run/executors/slurm-cli.js';
import { slurmExecutor } from '../../../../src/run/executors/slurm.js';
import { writeManifest } from '../../../../src/run/executors/slurm-manifest.js';
import { exits, journal, launches, slurmForFile, supervisorsForEach, until } from '../../../helpers/slurm.js';
import { slurmWorkspace } from '../../../helpers/slurm-ws.js';
import { DIST_SUPERVISOR, supervisorScript } from '../../../helpers/child-supervisor.js';
import { tempDir } from '../../../helpers/workspace.js';

// Slurm job arrays on a real one-node cluster of this file's own (docs/scale-out.md, Arrays):
// ready cells of one step go out as one `sbatch --array=0-N%T`, T the agent's concurrency,
// changed live by `scontrol update … ArrayTaskThrottle`; one squeue per poll whatever the
// number of tasks; a failing task retries alone, with its class, as a plain job; a kill -9 of
// checkroom, then the tasks are adopted by their `<array>_<task>` ids, never submitted twice.

const { missing, cluster } = slurmForFile(beforeAll, afterAll);
const start = supervisorsForEach(afterEach);

/** Slurm's commands behind shims on PATH that count every call (one line per call). */
const countingPath = (): { path: string; calls: () => Record<string, number> } => {
  const dir = tempDir('checkroom-shims-');
  const log = join(dir, 'calls.txt');
  writeFileSync(log, '');
  for (const cmd of ['sbatch', 'squeue', 'scontrol', 'scancel']) {
    const real = spawnSync('sh', ['-c', 'command -v "$1"', 'sh', cmd], { encoding: 'utf8' }).stdout.trim();
    mkdirSync(join(dir, 'bin'), { recursive: true });
    writeFileSync(join(dir, 'bin', cmd), `#!/bin/sh\necho ${cmd} >> ${JSON.stringify(log)}\nexec ${JSON.stringify(real)} "$@"\n`);
    chmodSync(join(dir, 'bin', cmd), 0o755);
  }
  return {
    path: `${join(dir, 'bin')}:${process.env.PATH ?? ''}`,
    calls: () => readFileSync(log, 'utf8').split('\n').filter(Boolean).reduce<Record<string, number>>((m, c) => ({ ...m, [c]: (m[c] ?? 0) + 1 }), {}),
  };
};

const throttleOf = (arrayId: string): string | undefined => /ArrayTaskThrottle=(\d+)/.exec(cluster().run(['scontrol', 'show', 'job', '-o', arrayId]).out)?.[1];
const UNITS = ['ch01', 'ch02', 'ch03', 'ch04', 'ch05'];

describe.skipIf(missing)('Slurm job arrays on a real local cluster', () => {
  it('five ready cells go out as one array with %T = concurrency; the throttle follows a live change; one squeue per poll; a failed task retries alone, with its class', async () => {
    const shims = countingPath();
    const polls0 = queuePolls();
    const savedPath = process.env.PATH;
    process.env.PATH = shims.path;
    try {
      const root = slurmWorkspace({ units: UNITS, concurrency: 2, speed: 1, faults: { 'ch02/research': 'overloaded' }, slurm: '{ poll: 500ms, arrays: true }' });
      const events: SupervisorEvent[] = [];
      const s = await start(root, events);
      // Autopilot admits the whole ready step (the array's %T throttles it), not `concurrency` cells.
      await s.setAutopilot(true, { maxLaunches: UNITS.length });
      await until('five launches journalled', async () => launches(await journal(root)).length >= UNITS.length);
      const first = launches(await journal(root)).slice(0, UNITS.length);
      const arrays = new Set(first.map((l) => l.jobId!.split('_')[0]));
      expect(arrays.size).toBe(1);
      const [array] = [...arrays];
      expect(first.map((l) => l.jobId).sort()).toEqual(UNITS.map((_, i) => `${array}_${i}`).sort());
      expect(shims.calls().sbatch).toBe(1);
      expect(throttleOf(array!)).toBe('2');
      // The operator raises the concurrency: the live array's throttle follows, and it is journalled.
      expect(await s.setConcurrency('researcher', 3)).toEqual([]);
      expect(throttleOf(array!)).toBe('3');
      expect((await journal(root)).some((e) => e.type === 'concurrency' && e.agent === 'researcher' && e.concurrency === 3)).toBe(true);
      await until('every research cell done', () => UNITS.every((u) => s.snapshot().ledger.cells[`${u}/research`]?.attempts.at(-1)?.class === 'SUCCESS'), 120_000);
      const ev = await journal(root);
      const ch02 = launches(ev).filter((l) => l.unit === 'ch02');
      // The failed task is retried alone, as a plain job, with its class; the others ran once.
      expect(exits(ev).filter((e) => e.unit === 'ch02').map((e) => e.class)).toEqual(['OVERLOADED', 'SUCCESS']);
      expect(ch02.map((l) => l.jobId!.includes('_'))).toEqual([true, false]);
      for (const u of UNITS.filter((x) => x !== 'ch02')) expect(launches(ev).filter((l) => l.unit === u)).toHaveLength(1);
      // Every log is the cell's own: its argv header and its agent's lines.
      for (const l of first) expect(readFileSync(l.logPath, 'utf8')).toContain(`starting research`);
      // A task squeue no longer lists is asked of scontrol by its own id (`JobId=<n> ArrayJobId=<array> ArrayTaskId=<i>`).
      expect(await showJob(first[0]!.jobId!, cluster().env)).toMatch(new RegExp(`ArrayJobId=${array} `));
      expect(await showJob(`${array}_99`, cluster().env)).toBeNull();
      // The scheduler as a source (Sources view, recover): each task maps back to its cell by the manifest.
      const listed = await slurmExecutor.scheduler!.jobs(root, (await loadConfig(root)).agents.researcher!);
      expect('error' in listed).toBe(false);
      for (const l of first) expect(listed).toContainEqual(expect.objectContaining({ id: l.jobId, runId: l.runId, unit: l.unit, step: 'research' }));
      // One squeue a poll, whatever the number of tasks: each call was one poll of the shared queue
      // (the source's own squeue above and the driver's one look at start for jobs no launch
      // record names, unjournalled-jobs.ts, are counted apart).
      const c = shims.calls();
      c.squeue! -= 2;
      expect(c.sbatch).toBe(2);
      expect(c.squeue).toBeGreaterThan(0);
      expect(c.squeue).toBe(queuePolls() - polls0);
      // No call per task: pending tasks are found in squeue's ranges, never asked one by one;
      // the one scontrol is the throttle's update.
      expect(c.scontrol).toBe(1);
    } finally {
      process.env.PATH = savedPath;
    }
  }, 180_000);

  it('kill -9 of checkroom with an array in flight: the tasks are adopted by their ids and finish; nothing is submitted twice', async () => {
    expect(existsSync(DIST_SUPERVISOR), 'run `npm run build` first').toBe(true);
    const root = slurmWorkspace({ units: UNITS.slice(0, 3), concurrency: 1, speed: 1, slurm: '{ poll: 500ms, arrays: true }' });
    const script = join(root, '.checkroom-proc.mjs');
    writeFileSync(script, supervisorScript(`await s.setAutopilot(true, { maxLaunches: 3 });\n`));
    const child: ChildProcess = spawn(process.execPath, [script, root], { stdio: 'ignore', env: { ...cluster().env } });
    await until('three launches journalled', async () => launches(await journal(root)).length === 3);
    child.kill('SIGKILL');
    if (child.exitCode === null && child.signalCode === null) await new Promise((r) => child.once('exit', r));
    const orphans = launches(await journal(root));
    expect(new Set(orphans.map((l) => l.jobId!.split('_')[0])).size).toBe(1);
    const events: SupervisorEvent[] = [];
    const s: Supervisor = await openSupervisor({ root, config: await loadConfig(root), onEvent: (e) => events.push(e) });
    try {
      expect(events.filter((e) => e.type === 'reaped')).toEqual([]);
      expect(s.snapshot().runs.map((r) => r.job?.id).sort()).toEqual(orphans.map((l) => l.jobId).sort());
      // The adopted array still follows the agent's concurrency.
      expect(await s.setConcurrency('researcher', 2)).toEqual([]);
      expect(throttleOf(orphans[0]!.jobId!.split('_')[0]!)).toBe('2');
      await until('the adopted tasks ended', async () => exits(await journal(root)).length === 3, 120_000);
      const ev = await journal(root);
      expect(exits(ev).map((e) => e.class)).toEqual(['SUCCESS', 'SUCCESS', 'SUCCESS']);
      expect(launches(ev)).toHaveLength(3);
    } finally {
      await s.close({ cancel: true });
    }
  }, 180_000);
});

describe('the array task script, run by /bin/sh as a node would', () => {
  it('finds its own line by SLURM_ARRAY_TASK_ID (or JOB_COMPLETION_INDEX), runs the argv verbatim in its cwd into its own log, and leaves its exit status', async () => {
    const root = tempDir();
    const task = (i: number) => ({ runId: `r${i}`, unit: `u${i}`, step: 'draft', logPath: join(root, `u${i}.log`), statusPath: join(root, `u${i}.exit`), cwd: root, argv: ['sh', '-c', 'printf "[%s]" "$@"; pwd; exit 4', 'zero', '', 'a b', '$(id) `id` *', 'é'] });
    const { manifest, wrapper } = await writeManifest(root, 'draft-1', [task(0), task(1)]);
    const slurm = spawnSync(wrapper, [manifest], { env: { PATH: process.env.PATH, SLURM_ARRAY_TASK_ID: '1' }, encoding: 'utf8' });
    expect(slurm.status).toBe(4);
    expect(readFileSync(join(root, 'u1.log'), 'utf8')).toBe(`[][a b][$(id) \`id\` *][é]${root}\n`);
    expect(readFileSync(join(root, 'u1.exit'), 'utf8')).toBe('4 \n');
    expect(existsSync(join(root, 'u0.log'))).toBe(false);
    const kube = spawnSync(wrapper, [manifest], { env: { PATH: process.env.PATH, JOB_COMPLETION_INDEX: '0' }, encoding: 'utf8' });
    expect(kube.status).toBe(4);
    expect(existsSync(join(root, 'u0.exit'))).toBe(true);
    const none = spawnSync(wrapper, [manifest], { env: { PATH: process.env.PATH, SLURM_ARRAY_TASK_ID: '7' }, encoding: 'utf8' });
    expect(none.status).toBe(3);
    expect(none.stderr).toMatch(/no task 7/);
  });

  it("exports the task's secrets from their 0600 file beside its status file, then deletes the file (the single job's wrapper does the same)", async () => {
    const root = tempDir();
    const key = 'sk-array-secret-7f3a9c';
    const task = { runId: 'r0', unit: 'u0', step: 'draft', logPath: join(root, 'u0.log'), statusPath: join(root, 'u0.exit'), cwd: root, argv: ['sh', '-c', 'echo "$ANTHROPIC_API_KEY"'] };
    const { manifest, wrapper } = await writeManifest(root, 'draft-2', [task]);
    writeFileSync(join(root, 'u0.secrets'), `ANTHROPIC_API_KEY=${key}\n`, { mode: 0o600 });
    const r = spawnSync(wrapper, [manifest], { env: { PATH: process.env.PATH, SLURM_ARRAY_TASK_ID: '0' }, encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(readFileSync(join(root, 'u0.log'), 'utf8')).toBe(`${key}\n`);
    expect(existsSync(join(root, 'u0.secrets'))).toBe(false);
  });
});
