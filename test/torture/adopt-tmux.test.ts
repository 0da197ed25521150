import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readJournal, type LaunchEvent } from '../../src/run/journal/journal.js';
import { isSameProcessAlive } from '../../src/run/process/proc.js';
import { CLI, hasTmux, launchByHand, roomSessions, slowAgentDemo } from '../helpers/tmux.js';

// Issue 8 item 4, the whole program in a real terminal (tmux 80×24): launch ch03 r2 from the
// Plan, quit with "leave running" (q, l), start checkroom again 6 s later. The new control
// room says it adopted the run, shows it running (adopted), and the cell turns done by its
// marker — the agent was never killed, its output never triaged as a half-product.

describe.skipIf(!hasTmux())('torture: leave running across a restart of the control room (tmux 80×24)', () => {
  // Slow agent (a section every 3-10 s) so it is mid-write across the restart.
  const { open } = roomSessions(afterAll);

  it('l leaves the run; the next start adopts it and its cell turns done by its marker', { timeout: 150_000 }, async () => {
    expect(existsSync(CLI), 'run `npm run build` first').toBe(true);
    // The slow agent's pauses are longer than the demo's 8 s idle watchdog.
    const dir = slowAgentDemo();
    const a = open(dir);
    await launchByHand(a, 'ch03', 'r2');
    a.keys('q');
    await a.waitFor('Quit with 1 run in flight');
    a.keys('l');
    const asked = await a.waitFor(/EXITED-0|write RESUME\.md first\?/);
    if (!asked.includes('EXITED-0')) a.keys('n');
    expect(await a.waitFor('EXITED-0')).toMatch(/1 run left running; the next checkroom on this workspace adopts it/);

    const launch = (await readJournal(dir)).events.find((e): e is LaunchEvent => e.type === 'launch' && e.unit === 'ch03')!;
    await new Promise((r) => setTimeout(r, 6000));
    expect(isSameProcessAlive(launch.pid!, launch.procStart)).toBe(true);

    const b = open(dir);
    // It says so at once (the first checkroom's lock was left too: taken over, said after).
    await b.waitFor(/adopted 1 run left running: ch03 r2 \(pid \d+\)/);
    // The recover report may open first (the last session did not end with its runs): close it.
    b.keys('Escape', '3');
    await b.waitFor(/ch03 r2\s+running/);
    await b.waitFor(/running \(adopted\) pid \d+/);
    await b.waitFor(/ch03 r2: done — marker R2_CONSISTENCY_REVIEW_COMPLETE is the last line \(adopted/, 90_000);
    const out = readFileSync(join(dir, 'reviews/ch03-r2-consistency.md'), 'utf8');
    expect(out.trimEnd().split('\n').pop()).toBe('<!-- R2_CONSISTENCY_REVIEW_COMPLETE -->');
    const j = (await readJournal(dir)).events;
    expect(j.filter((e) => e.type === 'reaped')).toEqual([]);
    expect(j.filter((e) => e.type === 'exit' && e.runId === launch.runId)).toMatchObject([{ class: 'SUCCESS', exitCode: null }]);
    // The agent wrote on after its first control room was gone: into the output and the log.
    expect(readFileSync(launch.logPath, 'utf8')).toMatch(/writing section 4\/4/);
    b.keys('q');
    const asked2 = await b.waitFor(/EXITED-0|write RESUME\.md first\?/);
    if (!asked2.includes('EXITED-0')) b.keys('n');
    await b.waitFor('EXITED-0');
  });
});
