import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../helpers/workspace.js';
import { loadConfig } from '../../../src/pipeline/config/config.js';
import { openSupervisor, type SupervisorEvent } from '../../../src/run/supervisor/supervisor.js';
import { workspaceTag } from '../../../src/run/executors/slurm-wrapper.js';
import { runIdParts } from '../../../src/run/supervisor/unjournalled-jobs.js';
import { loadWorkspace } from '../../../src/workspace.js';
import { exits, journal, launches, slurmForFile, until } from '../../helpers/slurm.js';
import { slurmWorkspace } from '../../helpers/slurm-ws.js';
import { DIST_SUPERVISOR, supervisorScript } from '../../helpers/child-supervisor.js';

// A kill -9 inside a submission's window, on a real local Slurm: sbatch has the job and
// answered, but the checkroom that asked dies before it journals the launch. The sbatch on
// the dying checkroom's PATH is the real one, then a kill -9 of its caller (the node process
// that spawned it), so the window is hit every time, not by luck. The next driver finds the
// job by the run id in its comment, journals its launch, adopts it and follows it to its end;
// the cell is submitted once.

const { missing, cluster } = slurmForFile(beforeAll, afterAll);

/** A PATH whose sbatch submits for real, then kills the process that called it. */
const killingSbatch = (): string => {
  const real = spawnSync('sh', ['-c', 'command -v sbatch'], { encoding: 'utf8' }).stdout.trim();
  const dir = tempDir('checkroom-sbatch-shim-');
  mkdirSync(dir, { recursive: true });
  const shim = join(dir, 'sbatch');
  writeFileSync(shim, `#!/bin/sh\nout=$(${JSON.stringify(real)} "$@")\ncode=$?\nprintf '%s\\n' "$out"\nprintf '%s\\n' "$out" >> ${JSON.stringify(join(dir, 'submitted'))}\n[ "$code" -eq 0 ] && kill -9 "$PPID"\nexit "$code"\n`);
  chmodSync(shim, 0o755);
  return dir;
};

/** Jobs of this workspace the cluster knows, by the tag in their comments. */
const jobsOf = (root: string): string[] =>
  cluster()
    .run(['squeue', '-h', '--me', '-t', 'all', '-o', '%i %k'])
    .out.split('\n')
    .filter((l) => l.includes(`ws=${workspaceTag(root)}`))
    .map((l) => l.split(' ')[0]!);

describe('run ids name their cell, attempt and time', () => {
  it('reads back what newRunId wrote, and refuses any other shape or cell', () => {
    expect(runIdParts('ch01-research-a2-m3x9k2ab-0a1b2c', 'ch01', 'research')).toEqual({ attempt: 2, at: parseInt('m3x9k2ab', 36) });
    expect(runIdParts('ch01-research-a2-m3x9k2ab-0a1b2c', 'ch02', 'research')).toBeNull();
    expect(runIdParts('../../etc-a1-abc-0a1b2c', '../../etc', 'x')).toBeNull();
    expect(runIdParts('ch01-research-a0-abc-0a1b2c', 'ch01', 'research')).toBeNull();
    expect(runIdParts('ch01-research-a1-abc-0a1b2c/x', 'ch01', 'research')).toBeNull();
  });
});

/** A checkroom with autopilot on, killed by its own sbatch: the job id Slurm answered. */
const killedInWindow = async (root: string, launches: number): Promise<string> => {
  const shim = killingSbatch();
  writeFileSync(join(root, '.checkroom-proc.mjs'), supervisorScript(`await s.setAutopilot(true, { maxLaunches: ${launches} });\n`));
  const env = { ...cluster().env, PATH: `${shim}:${cluster().env.PATH ?? process.env.PATH ?? ''}` };
  const child = spawn(process.execPath, [join(root, '.checkroom-proc.mjs'), root], { stdio: 'ignore', env });
  const died = await new Promise<string | null>((r) => child.once('exit', (_code, signal) => r(signal)));
  expect(died).toBe('SIGKILL');
  const submitted = readFileSync(join(shim, 'submitted'), 'utf8').trim().split('\n');
  expect(submitted).toHaveLength(1);
  return submitted[0]!.split(';')[0]!;
};

describe.skipIf(missing)('kill -9 between sbatch and the launch record', () => {
  it('the next driver records the job, adopts it to its end, and never submits the cell again', async () => {
    expect(existsSync(DIST_SUPERVISOR), 'run `npm run build` first (npm test does)').toBe(true);
    const root = slurmWorkspace({ units: ['ch01'], speed: 1 });
    const jobId = await killedInWindow(root, 1);
    // The window: Slurm has the job, the journal has no launch.
    expect(jobsOf(root)).toEqual([jobId]);
    expect(launches(await journal(root))).toEqual([]);

    const events: SupervisorEvent[] = [];
    const s = await openSupervisor({ root, config: await loadConfig(root), onEvent: (e) => events.push(e) });
    try {
      // Recorded before anything could launch the cell again, then adopted.
      const l = launches(await journal(root));
      expect(l).toHaveLength(1);
      expect(l[0]).toMatchObject({ unit: 'ch01', step: 'research', attempt: 1, executor: 'slurm', jobId, argv: [] });
      expect(s.snapshot().runs.map((r) => r.job?.id)).toEqual([jobId]);
      expect(s.snapshot().notices.join('\n')).toMatch(/found 1 job submitted just before the last checkroom ended and never journalled: ch01 research \(job \d+\) — recorded and adopted/);
      await until('the adopted job ended', async () => exits(await journal(root)).some((e) => e.runId === l[0]!.runId), 120_000);
      const ev = await journal(root);
      expect(exits(ev).find((e) => e.runId === l[0]!.runId)!.class).toBe('SUCCESS');
      expect(launches(ev).filter((x) => x.unit === 'ch01' && x.step === 'research')).toHaveLength(1);
      const st = await loadWorkspace(root, { config: await loadConfig(root) });
      expect(st.cells.find((c) => c.unit === 'ch01' && c.step === 'research')!.status).toBe('done');
      // Submitted once: the cluster knows one job of this workspace for the cell.
      const forResearch = cluster()
        .run(['squeue', '-h', '--me', '-t', 'all', '-o', '%k'])
        .out.split('\n')
        .filter((k) => k.includes(`ws=${workspaceTag(root)}`) && k.includes('cell=ch01/research'));
      expect(forResearch).toHaveLength(1);
      expect(events.filter((e) => e.type === 'reaped')).toEqual([]);
    } finally {
      await s.close({ cancel: true });
    }
  }, 180_000);

  it('an array killed in its window: every task, pending or running, is recorded by the array manifest and adopted; nothing is submitted twice', async () => {
    const units = ['ch01', 'ch02', 'ch03'];
    const root = slurmWorkspace({ units, concurrency: 1, speed: 1, slurm: '{ poll: 500ms, arrays: true }' });
    const arrayId = await killedInWindow(root, 3);
    expect(launches(await journal(root))).toEqual([]);
    const s = await openSupervisor({ root, config: await loadConfig(root) });
    try {
      const l = launches(await journal(root));
      // %1: one task runs, two wait in the array's pending range; each is its cell's.
      expect(l.map((x) => x.unit).sort()).toEqual(units);
      expect(l.map((x) => x.jobId).sort()).toEqual(units.map((_, i) => `${arrayId}_${i}`));
      expect(s.snapshot().runs).toHaveLength(3);
      await until('the adopted tasks ended', async () => exits(await journal(root)).length === 3, 120_000);
      const ev = await journal(root);
      expect(exits(ev).map((e) => e.class)).toEqual(['SUCCESS', 'SUCCESS', 'SUCCESS']);
      expect(launches(ev)).toHaveLength(3);
      expect(new Set(jobsOf(root).map((id) => id.split('_')[0]))).toEqual(new Set([arrayId]));
    } finally {
      await s.close({ cancel: true });
    }
  }, 180_000);
});
