import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DIST_SUPERVISOR, startChild, supervisorScript } from '../helpers/child-supervisor.js';
import { until } from '../helpers/until.js';
import { tempDir, writeFakeAgentWs } from '../helpers/workspace.js';
import { loadConfig } from '../../src/pipeline/config/config.js';
import { readJournal, type LaunchEvent } from '../../src/run/journal/journal.js';
import { isSameProcessAlive } from '../../src/run/process/proc.js';
import { openSupervisor, type SupervisorEvent } from '../../src/run/supervisor/supervisor.js';

// Issue 8 item 4: "leave running" means it. A real checkroom process (the built supervisor)
// launches the demo's agent, then quits the way the control room's `l` does: hand the output
// to the drain, exit. 6 s later a new checkroom starts: the agent is still writing (it did
// not die of EPIPE), is adopted — not reaped — and its cell turns done by its marker.

// Slow: four sections of 2-6 s each, so the agent is mid-write across the restart.
const makeWs = (): string =>
  writeFakeAgentWs(tempDir('checkroom-adopt-leave-'), { batched: false, speed: 0.05, idle: '60s', grace: '300ms', roles: [], tail: [] });

const SCRIPT = supervisorScript(`s.subscribe((e) => {
  if (e.type === 'output' && /writing section 1\\//.test(e.line)) {
    // What agents-open.ts does for "leave running": hand the runs to relays, journal the stop, exit.
    const n = s.snapshot().runs.length;
    void s.close({ leave: true, reason: 'quit' }).then(() => {
      process.stdout.write('LEFT ' + n + '\\n');
      process.exit(0);
    });
  }
});
void s.launch('ch01', 'research');
`);

describe('torture: leave running, restart 6 s later', () => {
  it('the agent keeps writing, is adopted (not reaped) and its cell turns done by its marker', { timeout: 120_000 }, async () => {
    expect(existsSync(DIST_SUPERVISOR), 'run `npm run build` first (npm test does)').toBe(true);
    const root = makeWs();
    const script = join(root, 'checkroom-proc.mjs');
    writeFileSync(script, SCRIPT);
    const { child, text, out } = startChild(script, [root]);
    const code = await new Promise<number | null>((r) => child.once('exit', r));
    expect(out(), text()).toMatch(/LEFT \d/);
    expect(code).toBe(0);

    const launch = (await readJournal(root)).events.find((e): e is LaunchEvent => e.type === 'launch')!;
    const output = join(root, 'research/ch01-research.md');
    // The scenario: the operator starts checkroom again 6 s later.
    await new Promise((r) => setTimeout(r, 6000));
    expect(isSameProcessAlive(launch.pid!, launch.procStart), `the agent survived its checkroom; its log:\n${readFileSync(launch.logPath, 'utf8')}`).toBe(true);
    const before = readFileSync(output, 'utf8');
    expect(before).not.toContain('RESEARCH_COMPLETE');

    const events: SupervisorEvent[] = [];
    const config = await loadConfig(root);
    const s = await openSupervisor({ root, config, onEvent: (e) => events.push(e) });
    try {
      expect(events.filter((e) => e.type === 'reaped')).toEqual([]);
      const snap = s.snapshot();
      expect(snap.role).toBe('driver');
      expect(snap.runs).toMatchObject([{ runId: launch.runId, unit: 'ch01', step: 'research', pid: launch.pid, origin: 'adopted' }]);
      expect(snap.notices.join('\n')).toMatch(/adopted 1 run left running: ch01 research \(pid \d+\)/);

      await until('the adopted run to end', () => events.some((e) => e.type === 'done' || e.type === 'failed'), 90_000);
      const done = events.find((e) => e.type === 'done');
      expect(done?.message).toMatch(/ch01 research: done — marker RESEARCH_COMPLETE is the last line \(adopted run, exit code unknown/);

      // It wrote on after the restart and ended by itself: marker last, no kill, no reap.
      const text = readFileSync(output, 'utf8');
      expect(text.length).toBeGreaterThan(before.length);
      expect(text.trimEnd().endsWith('<!-- RESEARCH_COMPLETE -->')).toBe(true);
      const j = (await readJournal(root)).events;
      expect(j.filter((e) => e.type === 'reaped')).toEqual([]);
      expect(j.find((e) => e.type === 'adopted')).toMatchObject({ runId: launch.runId, pid: launch.pid, by: process.pid });
      expect(j.find((e) => e.type === 'exit')).toMatchObject({ runId: launch.runId, class: 'SUCCESS', exitCode: null, markerFound: true });
      // Its output reached the log after its first checkroom had gone (the drain kept it).
      const log = readFileSync(launch.logPath, 'utf8');
      expect(log).toMatch(/writing section 4\/4/);
      expect(log).toMatch(/done: /);
      expect(readFileSync(join(root, 'checkpoint.md'), 'utf8')).toMatch(/ch01/);
      expect(s.snapshot().ledger.cells['ch01/research']!.state).toBe('done');
    } finally {
      await s.close({ cancel: true });
    }
  });
});
