import { afterEach, describe, expect, it } from 'vitest';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { PHASE_1_2, REPO, summaries, tempDir, writeFiles } from '../../../helpers/workspace.js';
import { loadConfig } from '../../../../src/pipeline/config/config.js';
import { appendJournal, readJournal, type NewJournalEvent } from '../../../../src/run/journal/journal.js';
import { lockPath, unlockDriverLock } from '../../../../src/run/supervisor/lock.js';
import { isSameProcessAlive, procStartTime } from '../../../../src/run/process/proc.js';
import { openSupervisor, type SupervisorEvent } from '../../../../src/run/supervisor/supervisor.js';

// Issue 8 items 4 and 5 on real processes and real journals: what a start does with runs an
// earlier checkroom left (adopt the live, reap only dead or foreign ones, say it), what an
// observer sees of the driver's work, and the checked way out of a foreign-host lock.

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

const makeWs = (): string => {
  const root = tempDir('checkroom-adopt-');
  writeFiles(root, { ...PHASE_1_2, 'meta/chapter-summaries.md': summaries([]) });
  writeFileSync(join(root, 'checkroom.yaml'), ['preset: book', 'units: { list: [ch01, ch02, ch03] }', 'agents:', '  researcher: { command: [node, agent.mjs] }', ''].join('\n'));
  mkdirSync(join(root, '.checkroom', 'runs'), { recursive: true });
  return root;
};

const launchOf = (root: string, unit: string, pid: number | null, procStart: number | null, at = 1_000): NewJournalEvent => ({
  type: 'launch',
  at,
  runId: `${unit}-research-a1`,
  unit,
  step: 'research',
  agent: 'researcher',
  attempt: 1,
  argv: ['node', 'agent.mjs'],
  cwd: root,
  logPath: join(root, '.checkroom', 'runs', `${unit}-research-a1.log`),
  pid,
  procStart,
  outputPath: join(root, 'research', `${unit}-research.md`),
});

const detachedSleep = (): ChildProcess => {
  const c = spawn('sleep', ['60'], { detached: true, stdio: 'ignore' });
  children.push(c);
  return c;
};

describe('a start settles the runs an earlier checkroom left', () => {
  it('adopts the live one, reaps only the dead and the foreign, and says what it did', async () => {
    const root = makeWs();
    const dead = spawnSync('true');
    expect(dead.status).toBe(0);
    const live = detachedSleep();
    const liveStart = procStartTime(live.pid!)!;
    await appendJournal(root, launchOf(root, 'ch01', live.pid!, liveStart, Date.now()));
    await appendJournal(root, launchOf(root, 'ch02', dead.pid, 12345));
    // A recycled pid: this very process, but not the start time recorded.
    await appendJournal(root, launchOf(root, 'ch03', process.pid, procStartTime(process.pid)! - 1));

    const events: SupervisorEvent[] = [];
    const s = await openSupervisor({ root, config: await loadConfig(root), onEvent: (e) => events.push(e) });
    try {
      const reaped = events.filter((e) => e.type === 'reaped');
      expect(reaped.map((e) => [e.unit, e.outcome])).toEqual([
        ['ch02', 'gone'],
        ['ch03', 'foreign'],
      ]);
      expect(reaped[1]!.message).toMatch(/pid now belongs to another process \(start time differs\): that process was left alone/);
      expect(isSameProcessAlive(live.pid!, liveStart)).toBe(true);
      const snap = s.snapshot();
      expect(snap.runs).toMatchObject([{ unit: 'ch01', step: 'research', pid: live.pid, origin: 'adopted' }]);
      expect(snap.notices.join(' ')).toMatch(/adopted 1 run left running: ch01 research \(pid \d+\).*closed 2 runs of an earlier checkroom: ch02 research \(gone\), ch03 research \(foreign\)/);
      const j = (await readJournal(root)).events;
      expect(j.filter((e) => e.type === 'reaped').map((e) => (e as { outcome: string }).outcome)).toEqual(['gone', 'foreign']);
      expect(j.filter((e) => e.type === 'adopted')).toMatchObject([{ runId: 'ch01-research-a1', pid: live.pid, by: process.pid }]);

      // The adopted process ends without writing its output: exit code unknown, no marker.
      live.kill('SIGKILL');
      const until = Date.now() + 20_000;
      while (!events.some((e) => e.type === 'failed') && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      expect(events.find((e) => e.type === 'failed')?.message).toMatch(/ch01 research: adopted run ended without its marker \(exit code unknown \(not a child of this checkroom\)\)/);
      expect((await readJournal(root)).events.find((e) => e.type === 'exit')).toMatchObject({ unit: 'ch01', exitCode: null, markerFound: false });
    } finally {
      await s.close({ cancel: true });
    }
  });
});

describe('closing without cancel', () => {
  it('leaves an adopted run running, unwatched, for the next driver to adopt again', async () => {
    const root = makeWs();
    const live = detachedSleep();
    const start = procStartTime(live.pid!)!;
    await appendJournal(root, launchOf(root, 'ch01', live.pid!, start, Date.now()));
    const config = await loadConfig(root);
    const first = await openSupervisor({ root, config });
    expect(first.snapshot().runs).toMatchObject([{ pid: live.pid, origin: 'adopted' }]);
    // `checkroom run` closes so: it must not wait for a run it did not start (sleep 60).
    await first.close();
    expect(isSameProcessAlive(live.pid!, start)).toBe(true);
    expect((await readJournal(root)).events.filter((e) => e.type === 'exit')).toEqual([]);
    const second = await openSupervisor({ root, config });
    try {
      expect(second.snapshot().runs).toMatchObject([{ pid: live.pid, origin: 'adopted' }]);
      expect((await readJournal(root)).events.filter((e) => e.type === 'adopted')).toHaveLength(2);
    } finally {
      await second.close({ cancel: true });
    }
    expect(isSameProcessAlive(live.pid!, start)).toBe(false);
    // Cancelled, the adopted run is waited for: its kill landed and its end is journalled.
    expect((await readJournal(root)).events.filter((e) => e.type === 'exit')).toMatchObject([{ unit: 'ch01', class: 'CANCELLED' }]);
  }, 20_000);
});

describe('an observer sees what the driver sees', () => {
  it("shows the driver's running run with its log, and its retry countdown, from the journal", async () => {
    const root = makeWs();
    const agent = detachedSleep();
    const launch = launchOf(root, 'ch01', agent.pid!, procStartTime(agent.pid!), Date.now());
    writeFileSync((launch as { logPath: string }).logPath, '[checkroom] start\n[researcher ch01] writing section 2/4\n');
    await appendJournal(root, launch);
    const at = Date.now();
    await appendJournal(root, { ...launchOf(root, 'ch02', 1, 1, at), runId: 'ch02-research-a1' } as NewJournalEvent);
    await appendJournal(root, {
      type: 'exit', at, runId: 'ch02-research-a1', unit: 'ch02', step: 'research', agent: 'researcher', exitCode: 1, signal: null, class: 'RATE_LIMITED',
      markerFound: false, cmdFp: 'a', errFp: 'b', keywords: [], errorTail: ['429'], durationMs: 5,
    });
    await appendJournal(root, { type: 'retry_scheduled', at, unit: 'ch02', step: 'research', attempt: 2, delayMs: 60_000, reason: 'RATE_LIMITED: backoff' });

    const ro = await openSupervisor({ root, config: await loadConfig(root), readonly: true });
    try {
      await ro.refresh();
      const snap = ro.snapshot();
      expect(snap.role).toBe('readonly');
      expect(snap.runs).toMatchObject([{ unit: 'ch01', step: 'research', pid: agent.pid, origin: 'driver', lines: ['[checkroom] start', '[researcher ch01] writing section 2/4'] }]);
      expect(snap.waiting).toMatchObject([{ unit: 'ch02', step: 'research', retryAt: at + 60_000 }]);
    } finally {
      await ro.close();
    }
  });
});

describe('checkroom unlock --host', () => {
  it('removes a lock of the named host only, never a live one of this host', () => {
    const root = makeWs();
    const lock = lockPath(root);
    writeFileSync(lock, JSON.stringify({ pid: 4242, procStart: 1, host: 'build-07', startedAt: '2026-11-30T10:00:00Z' }));
    expect(() => unlockDriverLock(root, 'build-08')).toThrow(/held by pid 4242 on host build-07, not build-08: not removed/);
    expect(existsSync(lock)).toBe(true);
    expect(unlockDriverLock(root, 'build-07')).toMatch(/removed .*driver\.lock \(pid 4242 on host build-07/);
    expect(existsSync(lock)).toBe(false);

    writeFileSync(lock, JSON.stringify({ pid: process.pid, procStart: procStartTime(process.pid), host: hostname(), startedAt: 'now' }));
    expect(() => unlockDriverLock(root, hostname())).toThrow(/on this host, which is running: ask it to hand over \(its runs keep running\): checkroom unlock .* --handover/);
    expect(existsSync(lock)).toBe(true);
  });

  it('is in --help, and the built CLI refuses a wrong host with exit 1', () => {
    const root = makeWs();
    writeFileSync(lockPath(root), JSON.stringify({ pid: 4242, procStart: 1, host: 'build-07', startedAt: 'x' }));
    const cli = join(REPO, 'dist', 'src', 'cli.js');
    const help = spawnSync(process.execPath, [cli, '--help'], { encoding: 'utf8' });
    expect(help.stdout).toContain('checkroom unlock [dir] --host NAME');
    const bad = spawnSync(process.execPath, [cli, 'unlock', root, '--host', 'elsewhere'], { encoding: 'utf8' });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/not elsewhere: not removed/);
    const ok = spawnSync(process.execPath, [cli, 'unlock', root, '--host', 'build-07'], { encoding: 'utf8' });
    expect(ok.status).toBe(0);
    expect(existsSync(lockPath(root))).toBe(false);
  });
});
