import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../../src/pipeline/config/config.js';
import type { SupervisorEvent } from '../../../src/run/supervisor/supervisor.js';
import { exits, jobStateOf, journal, launches, slurmForFile, supervisorsForEach, until } from '../../helpers/slurm.js';
import { slurmWorkspace } from '../../helpers/slurm-ws.js';
import { readScheduler } from '../../../src/sources/scheduler.js';
import { workspaceTag } from '../../../src/run/executors/slurm-wrapper.js';
import { loadWorkspace } from '../../../src/workspace.js';
import { recoverReport } from '../../../src/recover/report.js';
import { renderRecover } from '../../../src/recover/render.js';
import { createLiveWorkspace } from '../../../src/live/live-workspace.js';
import { createAppStore } from '../../../src/ui/store/store.js';
import { NO_COLOR_THEME } from '../../../src/text/theme.js';
import { renderRoom, tick, unmountAll } from '../../helpers/ink.js';

// Agents as jobs of a real one-node Slurm started for this file (issue 12): sbatch, squeue,
// scancel against real daemons; nothing is mocked.

// One cluster for this file, started and stopped by the shared helper (test/helpers/slurm.ts).
const { missing, cluster } = slurmForFile(beforeAll, afterAll);

const start = supervisorsForEach(afterEach);
const jobState = (id: string): string => jobStateOf(cluster(), id);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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
    expect(cluster().run(['scontrol', 'show', 'job', '-o', l.jobId!]).out).toContain(`JobName=checkroom-${l.runId}`);
  }, 90_000);

  it('concurrency becomes jobs in flight: autopilot never has more jobs of an agent queued or running than allowed', async () => {
    const units = ['ch01', 'ch02', 'ch03', 'ch04', 'ch05'];
    const root = slurmWorkspace({ units, concurrency: 2, speed: 10 });
    const s = await start(root);
    const most = new Map<string, number>();
    let stop = false;
    const sampler = (async () => {
      while (!stop) {
        const counts = new Map<string, number>();
        for (const line of cluster().run(['squeue', '-h', '-t', 'PENDING,RUNNING,CONFIGURING,COMPLETING', '-o', '%k']).out.split('\n')) {
          const step = / cell=[^/]+\/(\S+)/.exec(line)?.[1];
          if (step) counts.set(step, (counts.get(step) ?? 0) + 1);
        }
        for (const [k, n] of counts) most.set(k, Math.max(most.get(k) ?? 0, n));
        await sleep(100);
      }
    })();
    await s.setAutopilot(true, { maxLaunches: units.length });
    await until('five cells done', async () => exits(await journal(root)).filter((e) => e.class === 'SUCCESS').length === units.length, 120_000);
    stop = true;
    await sampler;
    // Two at a time per agent, and truly two at a time: the cluster had both in flight together.
    expect(most.get('research')).toBe(2);
    expect(Math.max(...most.values())).toBeLessThanOrEqual(2);
    expect(launches(await journal(root)).every((l) => l.executor === 'slurm' && /^\d+$/.test(l.jobId ?? ''))).toBe(true);
  }, 150_000);

  it('a failing job is classified by its exit and log, counted and capped', async () => {
    const root = slurmWorkspace({ faults: { 'ch01/research': 'permission', 'ch02/research': 'no_marker' }, units: ['ch01', 'ch02'], limits: ['  backoff_base: 100ms', '  backoff_max: 500ms', '  caps: { VERIFICATION_FAILED: 2 }'] });
    const s = await start(root);
    const [a, b] = await Promise.all([s.launch('ch01', 'research'), s.launch('ch02', 'research')]);
    expect(a.outcome).toBe('escalated');
    expect(a.class).toBe('PERMISSION');
    expect(a.attempts).toBe(1);
    expect(b.outcome).toBe('escalated');
    expect(b.class).toBe('VERIFICATION_FAILED');
    expect(b.attempts).toBe(2);
    const ex = exits(await journal(root));
    expect(ex.filter((e) => e.unit === 'ch02').map((e) => [e.class, e.exitCode])).toEqual([['VERIFICATION_FAILED', 0], ['VERIFICATION_FAILED', 0]]);
    expect(ex.find((e) => e.unit === 'ch01')!.exitCode).not.toBe(0);
    expect(s.snapshot().ledger.cells['ch01/research']!.state).toBe('needs_human');
  }, 120_000);

  it('scancel from outside checkroom is seen: the cell is cancelled, not failed, and autopilot leaves it alone', async () => {
    const root = slurmWorkspace({ faults: { 'ch01/research': 'hang' } });
    const events: SupervisorEvent[] = [];
    const s = await start(root, events);
    const p = s.launch('ch01', 'research');
    await until('the job running', () => s.snapshot().runs.some((r) => r.job && r.why === null && r.lines.some((l) => l.includes('starting research'))));
    const id = s.snapshot().runs[0]!.job!.id;
    expect(cluster().run(['scancel', id]).code).toBe(0);
    const r = await p;
    expect(r.outcome).toBe('cancelled');
    const [x] = exits(await journal(root));
    expect(x.class).toBe('CANCELLED');
    expect(x.errorTail.join('\n') + events.map((e) => e.message).join('\n')).toMatch(/cancelled outside checkroom/);
    expect(jobState(id)).toBe('CANCELLED');
    await s.tick();
    expect(s.snapshot().runs).toHaveLength(0);
  }, 90_000);

  it('a job still RUNNING after its marker is on disk counts as done by the marker', async () => {
    const agent = join(cluster().dir, 'marker-then-linger.sh');
    writeFileSync(agent, '#!/bin/sh\nmkdir -p "$(dirname "$1")"\nprintf "# research\\n\\n%s\\n\\n<!-- %s -->\\n" "$(head -c 600 /dev/zero | tr "\\0" x)" "$2" > "$1"\necho wrote the marker\nexec sleep 120\n');
    chmodSync(agent, 0o755);
    const root = slurmWorkspace({ researcher: `[${JSON.stringify(agent)}, '{output}', '{marker}']` });
    const events: SupervisorEvent[] = [];
    const s = await start(root, events);
    const r = await s.launch('ch01', 'research');
    expect(r.outcome).toBe('done');
    const [l] = launches(await journal(root));
    // Slurm still runs it: the marker, not the scheduler, proved it done.
    expect(jobState(l.jobId!)).toBe('RUNNING');
    expect(events.map((e) => e.message).join('\n')).toMatch(/marker is on disk while slurm job \d+ still shows (RUNNING|waiting)/);

    // The scheduler as a fourth source: the job that holds a node for a done cell, and a job
    // submitted by hand for this workspace that no launch recorded.
    const byHand = cluster().run(['sbatch', '--parsable', `--comment=checkroom ws=${workspaceTag(root)} run=by-hand cell=ch02/research`, '--output=/dev/null', '--wrap=sleep 60']).out.trim();
    const config = await loadConfig(root);
    const sch = await readScheduler(root, config, (await loadWorkspace(root, { config })).cells);
    expect(sch!.error).toBeNull();
    const found = sch!.findings.map((f) => [f.kind, `${f.unit}/${f.step}`, f.jobId]);
    expect(found).toHaveLength(2);
    expect(found).toContainEqual(['job_for_done_cell', 'ch01/research', l.jobId]);
    expect(found).toContainEqual(['job_not_launched', 'ch02/research', byHand]);
    const report = renderRecover(await recoverReport(root, { dryRun: true }), { paint: (_t, x) => x, ascii: true, width: 200 });
    expect(report).toMatch(new RegExp(`slurm +2 jobs of this workspace; 2 disagree with the cells`));
    expect(report).toContain(`job ${l.jobId} is still RUNNING, but the marker proves the cell done`);
    cluster().run(['scancel', l.jobId!, byHand]);
  }, 90_000);

  it('a PENDING job shows the scheduler’s Reason as the cell’s why; cancelling it is an operator cancel', async () => {
    const root = slurmWorkspace({ slurm: '{ poll: 500ms, extra_args: [--begin=now+1hour] }' });
    const s = await start(root);
    const p = s.launch('ch01', 'research');
    await until('the reason shown', () => s.snapshot().runs[0]?.why === 'waiting: BeginTime');
    const id = s.snapshot().runs[0]!.job!.id;
    expect(cluster().run(['squeue', '-h', '-j', id, '-o', '%T|%r']).out.trim()).toBe('PENDING|BeginTime');
    expect(s.cancel('ch01/research')).toBe(true);
    expect((await p).outcome).toBe('cancelled');
    await until('the job cancelled', () => jobState(id) === 'CANCELLED');
    expect(exits(await journal(root)).map((e) => e.class)).toEqual(['CANCELLED']);
  }, 90_000);

  it('the Sources view shows the scheduler: a job of this workspace that no launch recorded (80x24, NO_COLOR, ascii)', async () => {
    const root = slurmWorkspace();
    const id = cluster().run(['sbatch', '--parsable', `--comment=checkroom ws=${workspaceTag(root)} run=by-hand cell=ch01/research`, '--output=/dev/null', '--wrap=sleep 60']).out.trim();
    expect(id).toMatch(/^\d+$/);
    const live = await createLiveWorkspace(root, { watch: false });
    const store = createAppStore({ live, ascii: true });
    try {
      const { frame, press } = await renderRoom(store, live, NO_COLOR_THEME, 24, 80);
      await press('4');
      for (let i = 0; i < 200 && !frame().includes(`job ${id}`); i++) await tick(50);
      const screen = frame();
      expect(screen).toContain(`job ${id}`);
      expect(screen).toMatch(/ch01 research: job \d+ \(\S+\) was submitted for this/);
      for (const line of screen.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
    } finally {
      await unmountAll();
      cluster().run(['scancel', id]);
    }
  }, 60_000);
});
