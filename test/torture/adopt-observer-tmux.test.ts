import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readJournal, type LaunchEvent } from '../../src/run/journal/journal.js';
import { lockPath } from '../../src/run/supervisor/lock.js';
import { CLI, hasTmux, launchByHand, roomSessions, slowAgentDemo } from '../helpers/tmux.js';

// Issue 8 item 5, the whole program in two real terminals (tmux 80×24): a driving control
// room launches ch03 r2; a second one, read-only, shows the driver's run as running (never
// as a 0-character half-product). The driver is killed with kill -9: the observer takes over
// within seconds, says so naming .checkroom/driver.lock, stops being read-only, and finishes
// the run by its marker. The agent only prints to the log pane while its driver lives.

describe.skipIf(!hasTmux())('torture: observer takes over from a driver killed with kill -9 (tmux 80×24)', () => {
  const { open } = roomSessions(afterAll);

  it('the observer shows the run, takes over after kill -9, and the cell turns done', { timeout: 150_000 }, async () => {
    expect(existsSync(CLI), 'run `npm run build` first').toBe(true);
    const dir = slowAgentDemo();
    // A quiet agent: it prints only at its start, then writes its output (see the report on EPIPE).
    const agent = join(dir, 'agents', 'fake-agent.mjs');
    writeFileSync(agent, readFileSync(agent, 'utf8').replace("const say = (line) => process.stdout.write(`${tag} ${line}\\n`);", "let said = 0;\nconst say = (line) => said++ === 0 && process.stdout.write(`${tag} ${line}\\n`);"));

    const a = open(dir);
    await launchByHand(a, 'ch03', 'r2');

    const b = open(dir);
    await b.waitFor(/read-only: pid \d+@\S+ drives/);
    b.keys('3');
    // The driver's run, from its journal: running, counted in the header, not a half-product.
    await b.waitFor(/ch03 r2\s+running/);
    await b.waitFor(/running \(driver's\) pid \d+/);
    await b.waitFor(/· 1 running/);

    const driverPid = JSON.parse(readFileSync(lockPath(dir), 'utf8')).pid as number;
    process.kill(driverPid, 'SIGKILL');
    await a.waitFor(/EXITED-137/);
    await b.waitFor(/took over \.checkroom\/driver\.lock: it was stale \(held by pid \d+/, 30_000);
    // It drives now: the header drops READ-ONLY and the driver's name.
    const drives = await b.waitFor(() => !/READ-ONLY|read-only: pid/.test(b.capture()), 10_000);
    expect(drives).toMatch(/ch03 r2\s+running/);
    await b.waitFor(/ch03 r2: done — marker R2_CONSISTENCY_REVIEW_COMPLETE is the last line \(adopted/, 90_000);
    expect(readFileSync(join(dir, 'reviews/ch03-r2-consistency.md'), 'utf8').trimEnd().split('\n').pop()).toBe('<!-- R2_CONSISTENCY_REVIEW_COMPLETE -->');
    const j = (await readJournal(dir)).events;
    const launch = j.find((e): e is LaunchEvent => e.type === 'launch' && e.unit === 'ch03')!;
    expect(j.filter((e) => e.type === 'reaped')).toEqual([]);
    expect(j.filter((e) => e.type === 'exit' && e.runId === launch.runId)).toMatchObject([{ class: 'SUCCESS', exitCode: null }]);
    expect(JSON.parse(readFileSync(lockPath(dir), 'utf8')).pid).not.toBe(driverPid);
    b.keys('q');
    const asked = await b.waitFor(/EXITED-0|write RESUME\.md first\?/);
    if (!asked.includes('EXITED-0')) b.keys('n');
    await b.waitFor('EXITED-0');
  });
});
