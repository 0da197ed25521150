import { fromSupervisor } from '../../../src/socket/events.js';
import { describe, expect, it, afterEach } from 'vitest';
import { existsSync, readFileSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PHASE_1_2, tempDir, writeFakeAgentWs, writeFiles } from '../../helpers/workspace.js';
import { loadConfig } from '../../../src/pipeline/config/config.js';
import { loadWorkspace } from '../../../src/workspace.js';
import { readJournal, type JournalEvent } from '../../../src/run/journal/journal.js';
import { isSameProcessAlive } from '../../../src/run/process/proc.js';
import { parseCheckpoint } from '../../../src/checkpoint/parse.js';
import { claimsOf } from '../../../src/state/derive.js';
import { openSupervisor, type Supervisor, type SupervisorEvent } from '../../../src/run/supervisor/supervisor.js';
import { idle } from '../../helpers/idle.js';

// The supervisor on real processes (the demo's fake agent, fast) in real temp workspaces.


interface WsOpts {
  faults?: Record<string, string>;
  units?: string[];
  limits?: string;
  breaker?: string;
  idle?: string;
  files?: Record<string, string>;
  concurrency?: number;
}

const makeWs = (o: WsOpts = {}): string =>
  writeFakeAgentWs(tempDir('checkroom-sup-'), {
    units: o.units,
    faults: o.faults,
    files: o.files,
    speed: 40,
    idle: o.idle ?? '10s',
    concurrency: o.concurrency ?? 2,
    tail: ['limits:', ...(o.limits ?? '  backoff_base: 20ms\n  backoff_max: 100ms').split('\n'), 'breaker:', ...(o.breaker ?? '  threshold: 50\n  cooldown: 1s').split('\n')],
  });

const open: Supervisor[] = [];
const start = async (root: string, events: SupervisorEvent[] = [], rand = () => 0.5): Promise<Supervisor> => {
  const s = await openSupervisor({ root, config: await loadConfig(root), rand, onEvent: (e) => events.push(e) });
  open.push(s);
  return s;
};
afterEach(async () => {
  for (const s of open.splice(0)) await s.close({ cancel: true });
});

const journal = async (root: string): Promise<JournalEvent[]> => (await readJournal(root)).events;
const exits = (ev: JournalEvent[], key: string) => ev.filter((e): e is Extract<JournalEvent, { type: 'exit' }> => e.type === 'exit' && `${e.unit}/${e.step}` === key);
const claimOf = async (root: string, key: string) => {
  const cfg = await loadConfig(root);
  return claimsOf(parseCheckpoint(readFileSync(join(root, 'checkpoint.md'), 'utf8'), cfg.pipeline)).get(key);
};

describe('supervisor: one cell', () => {
  it('only the marker proves success: ✅ on disk and in checkpoint.md, one log per attempt', async () => {
    const root = makeWs();
    const s = await start(root);
    const r = await s.launch('ch01', 'research');
    expect(r.outcome).toBe('done');
    expect(r.attempts).toBe(1);
    const text = readFileSync(join(root, 'research/ch01-research.md'), 'utf8');
    expect(text.trimEnd().split('\n').pop()).toBe('<!-- RESEARCH_COMPLETE -->');
    // The checkpoint did not exist: it was rebuilt, then the cell set.
    expect(await claimOf(root, 'ch01/research')).toBe('done');
    const ev = await journal(root);
    expect(exits(ev, 'ch01/research').map((e) => e.class)).toEqual(['SUCCESS']);
    expect(readdirSync(join(root, '.checkroom/runs')).filter((f) => f.endsWith('.log'))).toHaveLength(1);
    expect(s.snapshot().ledger.cells['ch01/research']!.state).toBe('done');
  });

  it('shows ⏳ in checkpoint.md while the agent runs', async () => {
    const root = makeWs({ faults: { 'ch01/research': 'hang' } });
    const s = await start(root);
    const seen: Promise<string | undefined> = new Promise((resolve) => {
      s.subscribe((e) => {
        if (e.type === 'launch') void claimOf(root, 'ch01/research').then(resolve);
      });
    });
    const p = s.launch('ch01', 'research');
    expect(await seen).toBe('in_progress');
    expect(s.snapshot().runs.map((r) => `${r.unit}/${r.step}`)).toEqual(['ch01/research']);
    const state = await loadWorkspace(root, { running: new Set(['ch01/research']) });
    expect(state.cells.find((c) => c.unit === 'ch01' && c.step === 'research')!.status).toBe('running');
    expect(s.cancel('ch01/research')).toBe(true);
    expect((await p).outcome).toBe('cancelled');
  });

  it('rate limited twice, then success after jittered backoff; counts in the journal', async () => {
    const root = makeWs({ faults: { 'ch01/research': 'rate_limit_twice' } });
    const events: SupervisorEvent[] = [];
    const s = await start(root, events);
    const r = await s.launch('ch01', 'research');
    expect(r.outcome).toBe('done');
    expect(r.attempts).toBe(3);
    const ev = await journal(root);
    expect(exits(ev, 'ch01/research').map((e) => e.class)).toEqual(['RATE_LIMITED', 'RATE_LIMITED', 'SUCCESS']);
    const retries = ev.filter((e) => e.type === 'retry_scheduled');
    expect(retries.map((e) => (e as { attempt: number }).attempt)).toEqual([2, 3]);
    // Exponential: the second wait is longer than the first (equal jitter at rand 0.5).
    const delays = retries.map((e) => (e as { delayMs: number }).delayMs);
    expect(delays[0]).toBeGreaterThan(0);
    expect(delays[1]).toBeGreaterThan(delays[0]!);
    const msgs = events.filter((e) => e.type === 'retry').map((e) => e.message);
    expect(msgs[0]).toMatch(/^ch01 research: attempt 1 of 5 failed \(RATE_LIMITED\), retrying in \d+\.\d s$/);
    expect(msgs[1]).toContain('attempt 2 of 5 failed (RATE_LIMITED)');
    // Intermediate failures are not surfaced as failures.
    expect(events.some((e) => e.type === 'failed')).toBe(false);
    expect(ev.filter((e) => e.type === 'launch').map((e) => (e as { attempt: number }).attempt)).toEqual([1, 2, 3]);
  });

  it('permission: escalates at once (⚠️) and the dependents show as blocked', async () => {
    const root = makeWs({ faults: { 'ch01/research': 'permission' } });
    const events: SupervisorEvent[] = [];
    const s = await start(root, events);
    const r = await s.launch('ch01', 'research');
    expect(r.outcome).toBe('escalated');
    expect(r.attempts).toBe(1);
    expect(r.class).toBe('PERMISSION');
    const ev = await journal(root);
    expect(ev.filter((e) => e.type === 'escalate').map((e) => (e as { class: string }).class)).toEqual(['PERMISSION']);
    expect(await claimOf(root, 'ch01/research')).toBe('needs_human');
    const failed = events.filter((e) => e.type === 'failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]!.message).toContain('log: ');
    const state = await loadWorkspace(root);
    expect(state.cells.find((c) => c.unit === 'ch01' && c.step === 'draft')!.blockedBy).toContain('ch01/research');
  });

  it('exit 0 without the marker is VERIFICATION_FAILED: capped, then ⚠️; the half-product stays', async () => {
    const root = makeWs({ faults: { 'ch01/research': 'no_marker' }, limits: '  backoff_base: 20ms\n  backoff_max: 100ms\n  caps: { VERIFICATION_FAILED: 2 }' });
    const s = await start(root);
    const r = await s.launch('ch01', 'research');
    expect(r.outcome).toBe('escalated');
    const ev = await journal(root);
    expect(exits(ev, 'ch01/research').map((e) => [e.class, e.exitCode, e.markerFound])).toEqual([
      ['VERIFICATION_FAILED', 0, false],
      ['VERIFICATION_FAILED', 0, false],
    ]);
    expect((ev.find((e) => e.type === 'escalate') as { class: string }).class).toBe('VERIFICATION_FAILED');
    expect(existsSync(join(root, 'research/ch01-research.md'))).toBe(true);
    // The first attempt's half-product was backed up before the relaunch, and recorded.
    const backups = readdirSync(join(root, 'research')).filter((f) => f.startsWith('ch01-research.md.bak.'));
    expect(backups).toHaveLength(1);
    expect(ev.some((e) => e.type === 'decision' && e.kind === 'backup' && e.backupPath === `research/${backups[0]}`)).toBe(true);
    const state = await loadWorkspace(root);
    expect(state.cells.find((c) => c.unit === 'ch01' && c.step === 'research')!.status).toBe('needs_human');
  });

  it('the same error again and again is circular: CIRCULAR_FIX escalates', async () => {
    // Issue 17 item 5: UNKNOWN allows 2 attempts in all now; a larger cap lets the loop show.
    const root = makeWs({ faults: { 'ch01/research': 'same_error' }, limits: '  backoff_base: 20ms\n  backoff_max: 100ms\n  caps: { UNKNOWN: 5 }' });
    const said: SupervisorEvent[] = [];
    const s = await start(root, said);
    const r = await s.launch('ch01', 'research');
    expect(r.outcome).toBe('escalated');
    const ev = await journal(root);
    const ex = exits(ev, 'ch01/research');
    expect(ex.length).toBe(3);
    // Issue 18 item 1: the failure and the watch stream's escalation name the journal's class,
    // not the attempt's own (the status line and the event said UNKNOWN, Plan CIRCULAR_FIX).
    const failed = said.find((e) => e.type === 'failed') as Extract<SupervisorEvent, { type: 'failed' }>;
    expect(failed.class).toBe('CIRCULAR_FIX');
    expect(failed.message).toContain('(CIRCULAR_FIX)');
    expect(fromSupervisor(failed, 'now').find((w) => w.type === 'escalation')).toMatchObject({ class: 'CIRCULAR_FIX' });
    // Same command fingerprint although {attempt} and {backup} changed between attempts.
    expect(new Set(ex.map((e) => e.cmdFp)).size).toBe(1);
    expect((ev.find((e) => e.type === 'escalate') as { class: string }).class).toBe('CIRCULAR_FIX');
  });

  it('a silent hang is killed by the idle watchdog: STALLED, its process group gone', async () => {
    const root = makeWs({ faults: { 'ch01/research': 'hang' }, idle: '800ms', limits: '  backoff_base: 20ms\n  backoff_max: 100ms\n  caps: { STALLED: 0 }' });
    const s = await start(root);
    const r = await s.launch('ch01', 'research');
    expect(r.outcome).toBe('escalated');
    const ev = await journal(root);
    expect(exits(ev, 'ch01/research').map((e) => e.class)).toEqual(['STALLED']);
    const launch = ev.find((e) => e.type === 'launch') as { pid: number; procStart: number };
    expect(isSameProcessAlive(launch.pid, launch.procStart)).toBe(false);
    expect(readFileSync(r.logPath!, 'utf8')).toContain('reason=stalled');
  });

  it('a step whose agent is not configured is a clear error, never a launch', async () => {
    const root = makeWs();
    writeFileSync(join(root, 'checkroom.yaml'), readFileSync(join(root, 'checkroom.yaml'), 'utf8').replace('  writer: *a\n', ''));
    const s = await start(root);
    await expect(s.launch('ch01', 'draft')).rejects.toThrow("no agent 'writer' in checkroom.yaml: add agents.writer.command");
    expect(() => s.describeCommand('ch01', 'draft')).toThrow(/agents\.writer\.command/);
    expect((await journal(root)).some((e) => e.type === 'launch')).toBe(false);
  });

  it('never recreates a workspace that was deleted or moved away: it refuses and writes nothing', async () => {
    const root = makeWs();
    const s = await start(root);
    renameSync(root, `${root}-moved`);
    await expect(s.setAutopilot(true)).rejects.toThrow(/the workspace directory .* is gone/);
    await expect(s.launch('ch01', 'research')).rejects.toThrow(/the workspace directory .* is gone/);
    await expect(s.note({ type: 'decision', at: Date.now(), kind: 'skip', note: 'x' })).rejects.toThrow(/gone/);
    expect(existsSync(root)).toBe(false);
    renameSync(`${root}-moved`, root);
  });

  it('refuses to launch over an output it cannot read or back up (a directory under its name), and the cell keeps its claim', async () => {
    const root = makeWs({ files: { 'research/ch01-research.md/inner.txt': 'x' } });
    const s = await start(root);
    await expect(s.launch('ch01', 'research')).rejects.toThrow('ch01 research is not launched: research/ch01-research.md is not a regular file; replace or remove it first');
    expect((await journal(root)).some((e) => e.type === 'launch')).toBe(false);
    expect(readFileSync(join(root, 'research/ch01-research.md/inner.txt'), 'utf8')).toBe('x');
  });

  it('describeCommand gives the exact argv that runs', async () => {
    const root = makeWs();
    const s = await start(root);
    const p = s.describeCommand('ch01', 'research');
    expect(p.argv.slice(2, 6)).toEqual(['--unit', 'ch01', '--step', 'research']);
    expect(p.argv).toContain(join(root, 'research/ch01-research.md'));
    expect(p.text).toContain(`--marker RESEARCH_COMPLETE --attempt 1`);
    await s.launch('ch01', 'research');
    const launched = (await journal(root)).find((e) => e.type === 'launch') as { argv: string[] };
    expect(launched.argv).toEqual(p.argv);
  });

  it('an operator cancel is not a fault: no counter moves, autopilot leaves the cell alone', async () => {
    const root = makeWs({ faults: { 'ch01/research': 'hang' } });
    const s = await start(root);
    const p = s.launch('ch01', 'research');
    await new Promise<void>((resolve) => s.subscribe((e) => e.type === 'launch' && resolve()));
    s.cancel('ch01/research');
    const r = await p;
    expect(r.outcome).toBe('cancelled');
    const snap = s.snapshot();
    expect(snap.limits.consecutiveFailures).toBe(0);
    expect(snap.ledger.cells['ch01/research']!.lastClass).toBe('CANCELLED');
    const reason = idle(s);
    await s.setAutopilot(true);
    expect(await reason).toContain('cancelled by the operator');
  });
});

describe('supervisor: breaker', () => {
  it('opens after the threshold, half-opens after the cooldown, closes on a good probe', async () => {
    const root = makeWs({ faults: { 'ch01/research': 'rate_limit_twice' }, breaker: '  threshold: 2\n  cooldown: 400ms\n  max_cooldown: 2s' });
    const events: SupervisorEvent[] = [];
    const s = await start(root, events);
    const r = await s.launch('ch01', 'research');
    expect(r.outcome).toBe('done');
    const states = events.filter((e) => e.type === 'breaker' && e.agent === 'researcher').map((e) => (e as { state: string }).state);
    expect(states).toEqual(['open', 'half_open', 'closed']);
    // The open event carries the breaker's deadline: when the first failure's trip cools down (issue 18).
    const open = events.find((e) => e.type === 'breaker' && e.state === 'open') as Extract<SupervisorEvent, { type: 'breaker' }>;
    const tripped = exits(await journal(root), 'ch01/research').filter((e) => e.class !== 'SUCCESS')[1]!;
    expect(open.deadline).toBe(tripped.at + 400);
    expect(events.filter((e) => e.type === 'breaker' && e.state !== 'open').every((e) => (e as { deadline?: number | null }).deadline === null)).toBe(true);
    const view = s.snapshot().ledger.agents['researcher']!.view;
    expect(view.state).toBe('closed');
    expect(view.trips).toBe(0);
  });

  it('an open breaker refuses a manual launch; reset lets it through; hold blocks autopilot', async () => {
    const root = makeWs({ units: ['ch01', 'ch02'], faults: { 'ch01/research': 'permission' }, breaker: '  threshold: 1\n  cooldown: 60s' });
    const s = await start(root);
    expect((await s.launch('ch01', 'research')).outcome).toBe('escalated');
    expect(s.snapshot().ledger.agents['researcher']!.view.state).toBe('open');
    await expect(s.launch('ch02', 'research')).rejects.toThrow(/breaker researcher open/);
    await s.resetBreaker('researcher');
    expect(s.snapshot().ledger.agents['researcher']!.view.state).toBe('closed');
    await s.holdBreaker('researcher');
    const reason = idle(s);
    await s.setAutopilot(true);
    expect(await reason).toContain('breaker researcher held');
    await s.releaseBreaker('researcher');
    expect(s.snapshot().ledger.agents['researcher']!.canLaunch).toBe(true);
  });
});

describe('supervisor: autopilot and the death-spiral guard', () => {
  it('escalation blocks the unit’s dependents while other units continue', async () => {
    const root = makeWs({ units: ['ch01', 'ch02'], faults: { 'ch01/research': 'permission' } });
    const s = await start(root);
    const reason = idle(s);
    await s.setAutopilot(true);
    await reason;
    const ev = await journal(root);
    const launched = ev.filter((e) => e.type === 'launch').map((e) => `${(e as { unit: string }).unit}/${(e as { step: string }).step}`);
    expect(launched).toContain('ch01/research');
    expect(launched.filter((k) => k.startsWith('ch01/'))).toEqual(['ch01/research']);
    for (const step of ['research', 'draft', 'r1', 'r2', 'r3', 'review', 'panel', 'memory']) expect(launched).toContain(`ch02/${step}`);
    const state = await loadWorkspace(root);
    const cell = (u: string, st: string) => state.cells.find((c) => c.unit === u && c.step === st)!;
    expect(cell('ch01', 'research').status).toBe('needs_human');
    expect(cell('ch01', 'draft').blockedBy).toContain('ch01/research');
    expect(cell('ch02', 'memory').status).toBe('done');
    expect(await claimOf(root, 'ch02/panel')).toBe('done');
  });

  it('limits.max_launches stops autopilot and refuses further launches', async () => {
    const root = makeWs({ units: ['ch01', 'ch02', 'ch03'], limits: '  max_launches: 2\n  backoff_base: 20ms\n  backoff_max: 100ms' });
    const s = await start(root);
    const reason = idle(s);
    await s.setAutopilot(true);
    expect(await reason).toMatch(/launch budget/);
    const snap = s.snapshot();
    expect(snap.launchesThisSession).toBe(2);
    expect(snap.limits.maxLaunches).toBe(2);
    expect((await journal(root)).filter((e) => e.type === 'launch')).toHaveLength(2);
    await expect(s.launch('ch03', 'research')).rejects.toThrow(/launch budget/);
  });

  it('limits.max_consecutive_failures pauses autopilot, and no retry is launched past it', async () => {
    const root = makeWs({
      units: ['ch01', 'ch02', 'ch03'],
      faults: { 'ch01/research': 'rate_limit_twice', 'ch02/research': 'rate_limit_twice', 'ch03/research': 'rate_limit_twice' },
      limits: '  max_consecutive_failures: 2\n  backoff_base: 20ms\n  backoff_max: 100ms',
      concurrency: 1,
    });
    const events: SupervisorEvent[] = [];
    const s = await start(root, events);
    const reason = idle(s);
    await s.setAutopilot(true);
    expect(await reason).toMatch(/paused: 2 consecutive failures/);
    const snap = s.snapshot();
    expect(snap.autopilot).toMatchObject({ on: false, paused: true });
    expect(snap.limits.consecutiveFailures).toBe(2);
    expect((await journal(root)).filter((e) => e.type === 'launch')).toHaveLength(2);
    expect(events.filter((e) => e.type === 'failed').map((e) => (e as { escalated: boolean }).escalated)).toEqual([false]);
  });
});

describe('supervisor: one driver per workspace', () => {
  it('a second supervisor is read-only, says who drives, and refuses actions', async () => {
    const root = makeWs();
    const a = await start(root);
    const b = await start(root);
    expect(a.snapshot().role).toBe('driver');
    const snap = b.snapshot();
    expect(snap.role).toBe('readonly');
    expect(snap.holder?.pid).toBe(process.pid);
    expect(snap.readonlyReason).toBeTruthy();
    await expect(b.launch('ch01', 'research')).rejects.toThrow(/read-only: cannot launch/);
    expect(() => b.cancel('ch01/research')).toThrow(/read-only/);
    await expect(b.resetBreaker('researcher')).rejects.toThrow(/read-only/);
    await expect(b.resetCell('ch01', 'research')).rejects.toThrow(/read-only/);
    await a.launch('ch01', 'research');
    await b.refresh();
    expect(b.snapshot().ledger.cells['ch01/research']!.state).toBe('done');
  });
});

describe('supervisor: untrusted values reach the agent literally', () => {
  it('each value is exactly one argument; no shell ever sees it', async () => {
    const root = tempDir('checkroom-inj-');
    const pwned = join(root, 'pwned');
    const evil = [`$(touch ${pwned})`, '; rm -rf x', '`touch ' + pwned + '`', 'a\nb', '-rf'];
    const dump = join(root, 'argv.jsonl');
    writeFiles(root, {
      ...PHASE_1_2,
      'x/keep.txt': 'still here\n',
      'dump.mjs':
        "import { appendFileSync } from 'node:fs';\n" +
        `appendFileSync(${JSON.stringify(dump)}, JSON.stringify(process.argv.slice(2)) + '\\n');\n` +
        // First attempt fails with an injection string as its last line: it comes back as {last_error}.
        "if (process.argv[3] === '1') { process.stderr.write('$(touch " + pwned + ") ; rm -rf x\\n'); process.exit(1); }\n",
      'checkroom.yaml': [
        'preset: book',
        `units: { pattern: '[\\s\\S]+', list: ${JSON.stringify(evil)} }`,
        'agents:',
        `  researcher: { command: [node, dump.mjs, '{unit}', '{attempt}', '{last_error}'], idle_timeout: 5s }`,
        'limits: { max_consecutive_failures: 100, backoff_base: 10ms, backoff_max: 20ms, caps: { VERIFICATION_FAILED: 0 } }',
        'breaker: { threshold: 100 }',
        '',
      ].join('\n'),
    });
    const s = await start(root);
    for (const unit of evil) await s.launch(unit, 'research');
    const lines = readFileSync(dump, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as string[]);
    for (const unit of evil) {
      const mine = lines.filter((a) => a[0] === unit);
      expect(mine.map((a) => a[1])).toEqual(['1', '2']);
      expect(mine[0]).toEqual([unit, '1', '']);
      expect(mine[1]).toEqual([unit, '2', `$(touch ${pwned}) ; rm -rf x (exit 1)`]);
    }
    expect(existsSync(pwned)).toBe(false);
    expect(readFileSync(join(root, 'x/keep.txt'), 'utf8')).toBe('still here\n');
  });
});

describe('--readonly', () => {
  it('reads the journal history without taking the lock, and refuses every action', async () => {
    const root = makeWs({ faults: { 'ch01/research': 'permission' } });
    const driver = await openSupervisor({ root, config: await loadConfig(root) });
    open.push(driver);
    expect((await driver.launch('ch01', 'research')).outcome).toBe('escalated');
    await driver.close();
    const ro = await openSupervisor({ root, config: await loadConfig(root), readonly: true });
    open.push(ro);
    const snap = ro.snapshot();
    expect(snap.role).toBe('readonly');
    expect(snap.readonlyReason).toContain('--readonly');
    expect(snap.ledger.cells['ch01/research']!.attempts[0].class).toBe('PERMISSION');
    await expect(ro.launch('ch01', 'research', { reset: true })).rejects.toThrow(/read-only/);
    expect(existsSync(join(root, '.checkroom', 'driver.lock'))).toBe(false);
  });
});
