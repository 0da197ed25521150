import { afterAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { existsSync, readFileSync } from 'node:fs';
import { readJournal, type JournalEvent, type LeftRunning, type SessionEvent } from '../../src/run/journal/journal.js';
import { isSameProcessAlive } from '../../src/run/process/proc.js';
import { lockPath } from '../../src/run/supervisor/lock.js';
import { KEPT_REASON } from '../../src/run/supervisor/takeover.js';
import { openControl } from '../../src/socket/client.js';
import { CLI, hasTmux, launchByHand, roomSessions, slowAgentDemo } from '../helpers/tmux.js';

// Issue 17 item 3, handover without loss, the whole program in two real terminals (tmux
// 80×24). The driver runs agents with autopilot on and a cell held (its run cancelled by the
// operator); then nobody is at its terminal — its tmux session has no client attached, so
// nothing reads or types there while the process itself stays alive, the case of a client
// that vanished without a close. A second checkroom opens read-only, offers `T`, and asks
// through the control socket: the driver exits 0 leaving its runs running (nothing
// cancelled), the second drives, adopts every run at its attempt, autopilot on as before,
// the held cell still held, and the journal says so.

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Poll the journal until `ok` holds (bounded by the test's timeout). */
async function journalUntil(dir: string, ok: (events: JournalEvent[]) => boolean, what: string, ms = 60_000): Promise<JournalEvent[]> {
  const t0 = Date.now();
  for (;;) {
    const events = (await readJournal(dir)).events;
    if (ok(events)) return events;
    if (Date.now() - t0 > ms) throw new Error(`journal: timed out waiting for ${what}`);
    await sleep(200);
  }
}

describe.skipIf(!hasTmux())('torture: a driver nobody types into hands over to a second checkroom (tmux 80×24)', () => {
  const { open } = roomSessions(afterAll);
  const dirs: string[] = [];
  // The runs left running on purpose (and any of a failing test) must not outlive the suite.
  afterAll(async () => {
    for (const dir of dirs)
      for (const e of (await readJournal(dir)).events) {
        if (e.type !== 'launch') continue;
        // The agent's process group, and its keeper (a hung-up control room leaves runs to it).
        if (e.pid && isSameProcessAlive(e.pid, e.procStart ?? null)) process.kill(-e.pid, 'SIGKILL');
        if (e.keeper && isSameProcessAlive(e.keeper.pid, e.keeper.procStart)) process.kill(e.keeper.pid, 'SIGKILL');
      }
  });

  it('T in the read-only room: the driver leaves its runs and exits; the second drives them, autopilot on, hold kept', { timeout: 200_000 }, async () => {
    expect(existsSync(CLI), 'run `npm run build` first').toBe(true);
    const dir = slowAgentDemo();
    dirs.push(dir);

    const a = open(dir);
    // A held cell: ch03 r2 launched by hand, then cancelled by the operator (journalled `hold`).
    await launchByHand(a, 'ch03', 'r2');
    a.keys('x');
    await a.waitFor('Cancel ch03 r2');
    a.keys('y');
    await journalUntil(dir, (ev) => ev.some((e) => e.type === 'decision' && e.kind === 'hold' && e.unit === 'ch03' && e.step === 'r2'), 'the hold of ch03 r2');
    await journalUntil(dir, (ev) => ev.some((e) => e.type === 'exit' && e.unit === 'ch03' && e.step === 'r2'), 'the cancelled run to end');
    // Autopilot on: it starts other cells, never the held one.
    a.keys('Escape');
    await a.waitFor(() => !/filter: ch03/.test(a.capture()));
    a.keys('a');
    // The exact command was shown at the launch by hand: not asked again for this config.
    await a.waitFor(/auto on · /);
    await a.waitFor(/· [1-9]\d* running/, 60_000);

    const driverPid = JSON.parse(readFileSync(lockPath(dir), 'utf8')).pid as number;
    const b = open(dir);
    await b.waitFor(/read-only: pid \d+@\S+ drives · T take over/);
    b.keys('T');
    // The driver: gone by the handover, exit 0, its runs left running (not cancelled).
    expect(await a.waitFor('EXITED-0', 60_000)).toMatch(/runs? left running; the next checkroom on this workspace adopts/);
    const stop = (await readJournal(dir)).events.filter((e): e is SessionEvent => e.type === 'session' && e.kind === 'stop' && e.pid === driverPid).at(-1)!;
    expect(stop).toMatchObject({ reason: 'handover' });
    const left: LeftRunning[] = stop.left ?? [];
    expect(left.length).toBeGreaterThan(0);
    for (const r of left) expect(isSameProcessAlive(r.pid!, r.procStart), `${r.unit} ${r.step} left running`).toBe(true);

    // The second drives: no READ-ONLY, autopilot on as the driver had it.
    await b.waitFor(() => !/READ-ONLY|read-only: pid/.test(b.capture()), 30_000);
    await b.waitFor(/auto on · /, 30_000);
    const after = await journalUntil(dir, (ev) => left.every((r) => ev.some((e) => e.type === 'adopted' && e.runId === r.runId)), 'every left run adopted');
    const since = after.findIndex((e) => e === after.find((x) => x.type === 'session' && x.kind === 'stop' && x.pid === driverPid && x.reason === 'handover'));
    const later = after.slice(since + 1);
    // Adopted at their attempt: no relaunch of a left cell, nothing reaped as dead.
    for (const r of left)
      expect(
        later.some((e) => e.type === 'launch' && e.unit === r.unit && e.step === r.step),
        `${r.unit} ${r.step} relaunched`,
      ).toBe(false);
    expect(later.filter((e) => e.type === 'reaped')).toEqual([]);
    expect(later).toContainEqual(expect.objectContaining({ type: 'autopilot', on: true, reason: KEPT_REASON }));
    expect(JSON.parse(readFileSync(lockPath(dir), 'utf8')).pid).not.toBe(driverPid);

    // It answers on the control socket now (its first ask found the driver serving): a third
    // instance could ask it to hand over in turn.
    const served = async (): Promise<{ pid?: number; role?: string }> => {
      const o = await openControl(dir, 'ping', { timeoutMs: 2000 });
      if (!o.ok) return {};
      o.sock.destroy();
      return o.header;
    };
    for (let i = 0; i < 100 && (await served()).role !== 'driver'; i++) await sleep(200);
    expect(await served()).toMatchObject({ role: 'driver', pid: expect.any(Number) });
    expect((await served()).pid).not.toBe(driverPid);

    // The held cell stays held under the new driver's autopilot: no launch, no release.
    await sleep(3000);
    const now = (await readJournal(dir)).events.slice(since + 1);
    expect(now.filter((e) => (e.type === 'launch' || (e.type === 'decision' && e.kind === 'release')) && e.unit === 'ch03' && e.step === 'r2')).toEqual([]);
    b.keys('3');
    await b.waitFor(/running \(adopted\) pid \d+/, 30_000);

    b.keys('a');
    await b.waitFor(/auto off · /);
    b.keys('q');
    for (let i = 0; i < 4 && !b.capture().includes('EXITED-'); i++) {
      const screen = await b.waitFor(() => /EXITED-|Quit with|just quit/.test(b.capture()), 60_000);
      if (/Quit with/.test(screen)) b.keys('y');
      else if (screen.includes('just quit')) b.keys('n');
      await sleep(300);
    }
    await b.waitFor('EXITED-0', 60_000);
  });

  it('checkroom unlock --handover: the driver leaves, the next checkroom started drives its runs with autopilot on', { timeout: 200_000 }, async () => {
    const dir = slowAgentDemo();
    dirs.push(dir);
    const a = open(dir);
    await a.waitFor(/^auto off · live: /m);
    a.keys('3');
    await a.waitFor(/› P1 /);
    a.keys('a');
    await a.waitFor('Autopilot: the exact command');
    a.keys('y');
    await a.waitFor(/· [1-9]\d* running/, 60_000);
    const driverPid = JSON.parse(readFileSync(lockPath(dir), 'utf8')).pid as number;

    // Before: unlock refuses a live driver of this host and names the way that loses nothing.
    const refused = await execa(process.execPath, [CLI, 'unlock', dir, '--host', (await import('node:os')).hostname()], { reject: false });
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toMatch(/which is running: ask it to hand over \(its runs keep running\): checkroom unlock .* --handover/);

    const asked = await execa(process.execPath, [CLI, 'unlock', dir, '--handover'], { reject: false });
    expect(asked.stderr).toBe('');
    expect(asked.stdout).toMatch(new RegExp(`^pid ${driverPid} handed over: its runs keep running`));
    expect(asked.exitCode).toBe(0);
    expect(await a.waitFor('EXITED-0', 30_000)).toMatch(/left running/);
    const stop = (await readJournal(dir)).events.filter((e): e is SessionEvent => e.type === 'session' && e.kind === 'stop').at(-1)!;
    expect(stop).toMatchObject({ pid: driverPid, reason: 'handover' });
    const left = stop.left ?? [];
    expect(left.length).toBeGreaterThan(0);
    for (const r of left) expect(isSameProcessAlive(r.pid!, r.procStart), `${r.unit} ${r.step} left running`).toBe(true);

    const c = open(dir);
    await c.waitFor(/auto on · /, 30_000);
    const after = await journalUntil(dir, (ev) => left.every((r) => ev.some((e) => e.type === 'adopted' && e.runId === r.runId)), 'every left run adopted');
    const later = after.slice(after.indexOf(after.find((e) => e.type === 'session' && e.kind === 'stop' && e.pid === driverPid)!) + 1);
    for (const r of left)
      expect(
        later.some((e) => e.type === 'launch' && e.unit === r.unit && e.step === r.step),
        `${r.unit} ${r.step} relaunched`,
      ).toBe(false);
    expect(later.filter((e) => e.type === 'reaped')).toEqual([]);
    expect(later).toContainEqual(expect.objectContaining({ type: 'autopilot', on: true, reason: KEPT_REASON }));
    // A recover report may own the keys (the last session ended with its runs): the suite's end stops everything.
  });
});
