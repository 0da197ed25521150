import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobJournalEvent } from '../../../src/run/journal/job-events.js';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEMO, REPO, tempDir } from '../../helpers/workspace.js';
import { loadConfig } from '../../../src/pipeline/config/config.js';
import { readJournal, type JournalEvent, type LaunchEvent } from '../../../src/run/journal/journal.js';
import { openSupervisor, type Supervisor, type SupervisorEvent } from '../../../src/run/supervisor/supervisor.js';
import { loadWorkspace } from '../../../src/workspace.js';
import { slurmForFile } from '../../helpers/slurm.js';
import { slurmWorkspace } from '../../helpers/slurm-ws.js';
import { DIST_SUPERVISOR, supervisorScript } from '../../helpers/child-supervisor.js';
import { until as waitUntil } from '../../helpers/until.js';

// kill -9 of a real checkroom process while its agents run as jobs of a real local Slurm,
// then a restart (issue 12): the jobs are adopted — watched to their end, proved by their
// markers — never reaped, never submitted twice. The checkroom process runs the built
// supervisor (dist/, built by `npm test`).

// One cluster for this file, started and stopped by the shared helper (test/helpers/slurm.ts).
const { missing, cluster } = slurmForFile(beforeAll, afterAll);

// The checkroom process: autopilot on, then killed from outside.
const SCRIPT = supervisorScript(`s.subscribe((e) => { if (e.type === 'launch') process.stdout.write('LAUNCH ' + e.unit + '/' + e.step + '\\n'); });
await s.setAutopilot(true, process.argv[3] ? { maxLaunches: Number(process.argv[3]) } : {});
`);

const journal = async (root: string): Promise<JournalEvent[]> => (await readJournal(root)).events;
const launches = (ev: JournalEvent[]) => ev.filter((e): e is LaunchEvent => e.type === 'launch');
const exits = (ev: JournalEvent[]) => ev.filter((e): e is Extract<JournalEvent, { type: 'exit' }> => e.type === 'exit');
const until = (what: string, ok: () => boolean | Promise<boolean>, ms = 90_000): Promise<void> => waitUntil(what, ok, ms, 200);

const spawnCheckroom = (root: string, env: Record<string, string>, max?: number): ChildProcess => {
  const script = join(root, '.checkroom-proc.mjs');
  writeFileSync(script, SCRIPT);
  return spawn(process.execPath, [script, root, ...(max ? [String(max)] : [])], { stdio: ['ignore', 'pipe', 'pipe'], env });
};
const kill9 = async (child: ChildProcess): Promise<void> => {
  child.kill('SIGKILL');
  if (child.exitCode === null && child.signalCode === null) await new Promise((r) => child.once('exit', r));
};
/** Launches of the journal with no exit or reaped event: what a restart must adopt. */
const inFlight = (ev: JournalEvent[]): LaunchEvent[] => {
  const ended = new Set(ev.flatMap((e) => (e.type === 'exit' || e.type === 'reaped' ? [e.runId] : [])));
  return launches(ev).filter((l) => !ended.has(l.runId));
};

describe.skipIf(missing)('restart after kill -9 with agents as Slurm jobs', () => {
  it('adopts the running jobs instead of reaping or resubmitting them, and finishes them by their markers', async () => {
    expect(existsSync(DIST_SUPERVISOR), 'run `npm run build` first (npm test does)').toBe(true);
    const root = slurmWorkspace({ units: ['ch01', 'ch02'], speed: 0.5 });
    const child = spawnCheckroom(root, { ...cluster().env }, 2);
    // In flight and seen running: their start journalled by this checkroom, before the kill.
    await until('two jobs in flight, started', async () => {
      const ev = await journal(root);
      const started = new Set(ev.flatMap((e) => (e.type === 'job' && e.phase === 'started' ? [e.runId] : [])));
      return inFlight(ev).length === 2 && inFlight(ev).every((l) => started.has(l.runId));
    });
    const orphans = inFlight(await journal(root));
    await kill9(child);
    // The jobs outlived their checkroom: Slurm still has them.
    for (const l of orphans) expect(cluster().run(['squeue', '-h', '-j', l.jobId!, '-o', '%T']).out.trim()).toMatch(/RUNNING|PENDING|CONFIGURING|COMPLETING/);

    const events: SupervisorEvent[] = [];
    const s: Supervisor = await openSupervisor({ root, config: await loadConfig(root), onEvent: (e) => events.push(e) });
    try {
      expect(events.filter((e) => e.type === 'reaped')).toEqual([]);
      expect(s.snapshot().runs.map((r) => r.job?.id).sort()).toEqual(orphans.map((l) => l.jobId).sort());
      await until('the adoptions announced', () => events.filter((e) => e.type === 'launch' && /attempt 1 adopted \(researcher, slurm job \d+\)/.test(e.message)).length === 2);
      await until('both adopted runs ended', async () => {
        const ended = new Set(exits(await journal(root)).map((e) => e.runId));
        return orphans.every((l) => ended.has(l.runId));
      });
      const ev = await journal(root);
      for (const l of orphans) {
        expect(exits(ev).find((e) => e.runId === l.runId)!.class).toBe('SUCCESS');
        // Submitted once: the cell has exactly one launch.
        expect(launches(ev).filter((x) => x.unit === l.unit && x.step === l.step)).toHaveLength(1);
      }
      const state = await loadWorkspace(root, { config: await loadConfig(root) });
      for (const l of orphans) expect(state.cells.find((c) => c.unit === l.unit && c.step === l.step)!.status).toBe('done');
      // Its start and its accounting journalled once each across the restart (docs/scale-out.md, Queue time).
      const jobs = async () => (await journal(root)).filter((e): e is JobJournalEvent => e.type === 'job');
      await until('both adopted jobs accounted', async () => (await jobs()).filter((e) => e.phase === 'finished').length === 2);
      for (const l of orphans) {
        const mine = (await jobs()).filter((e) => e.runId === l.runId);
        expect(mine.map((e) => e.phase).sort()).toEqual(['finished', 'started']);
        expect(exits(ev).find((e) => e.runId === l.runId)!.queueWaitMs).toBe(mine.find((e) => e.phase === 'started')!.queueWaitMs);
      }
    } finally {
      await s.close({ cancel: true });
    }
  }, 150_000);

  it('the demo book runs to the end of Batch 2 with every agent a Slurm job, driven by autopilot, through a kill -9 mid-batch', async () => {
    const root = tempDir('checkroom-slurm-demo-');
    cpSync(DEMO, root, { recursive: true });
    rmSync(join(root, '.checkroom'), { recursive: true, force: true });
    writeFileSync(join(root, 'checkroom.yaml'), `${readFileSync(join(root, 'checkroom.yaml'), 'utf8')}\nexecutor: slurm\nslurm: { poll: 500ms }\n`);
    const env = { ...cluster().env, CHECKROOM_FAKE_SPEED: '4' };
    const child = spawnCheckroom(root, env);
    await until('the batch under way, jobs in flight', async () => {
      const ev = await journal(root);
      return launches(ev).length >= 3 && inFlight(ev).length >= 1;
    });
    const orphans = inFlight(await journal(root));
    await kill9(child);

    const saved = process.env.CHECKROOM_FAKE_SPEED;
    process.env.CHECKROOM_FAKE_SPEED = '4';
    const events: SupervisorEvent[] = [];
    const s = await openSupervisor({ root, config: await loadConfig(root), onEvent: (e) => events.push(e) });
    try {
      expect(events.filter((e) => e.type === 'reaped')).toEqual([]);
      await s.setAutopilot(true);
      const settled = async (): Promise<boolean> => {
        const l = s.snapshot().ledger;
        const config = await loadConfig(root);
        const st = await loadWorkspace(root, { config });
        const perChapter = new Set(config.pipeline.steps.filter((x) => x.phase === 3).map((x) => x.id));
        const ch03 = st.cells.filter((c) => c.unit === 'ch03' && perChapter.has(c.step));
        return ch03.length > 0 && ch03.every((c) => c.status === 'done') && l.cells['ch05/draft']?.state === 'needs_human';
      };
      await until('Batch 2 settled: ch03 done to its memory entry, ch05 draft escalated after its hangs', settled, 240_000).catch(async (e) => {
        console.log(events.filter((x) => x.type !== 'output').map((x) => x.message).join('\n'));
        const st = await loadWorkspace(root, { config: await loadConfig(root) });
        console.log(st.cells.filter((c) => ['ch03', 'ch05'].includes(c.unit)).map((c) => `${c.unit}/${c.step} ${c.status}`).join('\n'));
        throw e;
      });
      const ev = await journal(root);
      const all = launches(ev);
      expect(all.length).toBeGreaterThan(orphans.length);
      expect(all.every((l) => l.executor === 'slurm' && /^\d+$/.test(l.jobId ?? ''))).toBe(true);
      // Nothing submitted twice: one launch per cell and attempt, and every orphan ended once, adopted.
      const keys = all.map((l) => `${l.unit}/${l.step}#${l.attempt}`);
      expect(new Set(keys).size).toBe(keys.length);
      for (const o of orphans) expect(exits(ev).filter((e) => e.runId === o.runId)).toHaveLength(1);
      expect(exits(ev).filter((e) => e.unit === 'ch05' && e.step === 'draft').map((e) => e.class)).toEqual(['STALLED', 'STALLED']);
    } finally {
      await s.close({ cancel: true });
      if (saved === undefined) delete process.env.CHECKROOM_FAKE_SPEED;
      else process.env.CHECKROOM_FAKE_SPEED = saved;
    }
  }, 300_000);

  it('npm start -- --slurm makes every agent of the demo copy a Slurm job, or says why it cannot', () => {
    const bundle = join(REPO, 'dist', 'bundle', 'start-demo.js');
    expect(existsSync(bundle), 'run `npm run build` first (npm test does)').toBe(true);
    const ok = spawnSync(process.execPath, [bundle, '--slurm'], { env: cluster().env, encoding: 'utf8', timeout: 60_000 });
    expect(ok.status).toBe(0);
    const dir = /a copy of demo-workspace\/ is in (\S+)/.exec(ok.stdout)?.[1];
    expect(ok.stdout).toContain('every agent runs as a Slurm job');
    expect(readFileSync(join(dir!, 'checkroom.yaml'), 'utf8')).toMatch(/\nexecutor: slurm\n$/);
    const bad = spawnSync(process.execPath, [bundle, '--slurm'], { env: { ...cluster().env, SLURM_CONF: join(tempDir(), 'none.conf') }, encoding: 'utf8', timeout: 60_000 });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/--slurm needs a reachable Slurm cluster/);
  }, 90_000);
});
