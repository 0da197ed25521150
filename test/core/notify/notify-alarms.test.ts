import { afterEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO, tempDir, writeFakeAgentWs } from '../../helpers/workspace.js';
import { loadConfig } from '../../../src/pipeline/config/config.js';
import { readJournal } from '../../../src/run/journal/journal.js';
import { openSupervisor, type Supervisor, type SupervisorEvent } from '../../../src/run/supervisor/supervisor.js';
import { appendJournal } from '../../../src/run/journal/journal.js';
import type { Ledger } from '../../../src/run/journal/ledger.js';
import { replayJournal } from '../../../src/run/journal/ledger-fold.js';
import type { WorkspaceConfig } from '../../../src/pipeline/config/types.js';
import { createAlarms, type AlarmHost } from '../../../src/notify/alarms.js';
import { runNotifier } from '../../../src/notify/notifier-process.js';
import { createSenders } from '../../../src/notify/senders.js';

// Alarms that reach the operator (docs/notify.md) on real processes: the fake agent fails
// until the supervisor escalates, and the notify command is a small node script that appends
// its stdin to a file — what a human's notifier would have been handed.

const CLI = join(REPO, 'dist/src/cli.js');

/** A notifier: appends its stdin (one JSON line) to `out`; `hang` first writes its pid, then never exits. */
const notifier = (root: string, kind: 'log' | 'hang' | 'fail' = 'log'): string => {
  const file = join(root, `notifier-${kind}.mjs`);
  const body = {
    log: "let s='';process.stdin.on('data',(d)=>s+=d).on('end',()=>{fs.appendFileSync(process.argv[2],s)});",
    hang: "fs.writeFileSync(process.argv[2]+'.pid',String(process.pid));process.on('SIGTERM',()=>{});setInterval(()=>{},1000);",
    fail: "process.stderr.write('no route to the pager\\n');process.exit(3);",
  }[kind];
  writeFileSync(file, `import fs from 'node:fs';\n${body}\n`);
  return file;
};

const makeWs = (faults: Record<string, string>, notify: (root: string) => string[]): string => {
  const root = tempDir('checkroom-notify-');
  return writeFakeAgentWs(root, {
    units: ['ch01', 'ch02'],
    faults,
    speed: 40,
    idle: '10s',
    roles: ['writer', 'reviewer', 'editor', 'panel', 'archivist', 'publisher'],
    tail: ['limits: { backoff_base: 20ms, backoff_max: 50ms }', 'breaker: { threshold: 50 }', 'notify:', ...notify(root)],
  });
};

const logRule = (root: string, on = '[escalation]'): string[] => ['  commands:', `    - on: ${on}`, `      command: [node, ${JSON.stringify(notifier(root))}, ${JSON.stringify(join(root, 'alarms.jsonl'))}]`];

const alarmsIn = (root: string): Record<string, unknown>[] => {
  const f = join(root, 'alarms.jsonl');
  return existsSync(f) ? readFileSync(f, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>) : [];
};

/** The alarms' host over a real workspace: its journal, a fixed clock, the driver's role. */
const hostOf = (root: string, config: WorkspaceConfig, ledger: () => Ledger, events: SupervisorEvent[] = []): AlarmHost => ({
  root,
  config,
  now: () => 1_700_000_000_000,
  isDriver: () => true,
  ledger,
  append: (e) => appendJournal(root, e),
  emit: (e) => void events.push(e),
});

/** Running, not a zombie left for a parent that does not reap (a container's init). */
const alive = (pid: number): boolean => {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

const open: Supervisor[] = [];
const start = async (root: string, events: SupervisorEvent[] = []): Promise<Supervisor> => {
  const s = await openSupervisor({ root, config: await loadConfig(root), rand: () => 0.5, onEvent: (e) => events.push(e) });
  open.push(s);
  return s;
};
afterEach(async () => {
  for (const s of open.splice(0)) await s.close({ cancel: true });
});

describe('notify: an escalation reaches the notify command', () => {
  it('runs the command once, with the payload on its stdin, and journals it as notified', async () => {
    const root = makeWs({ 'ch01/research': 'permission' }, (r) => logRule(r));
    const s = await start(root);
    expect((await s.launch('ch01', 'research')).outcome).toBe('escalated');
    await s.close();
    const got = alarmsIn(root);
    expect(got).toHaveLength(1);
    expect(got[0]).toMatchObject({ v: 1, event: 'escalation', cell: 'ch01/research', unit: 'ch01', step: 'research', class: 'PERMISSION', agent: 'researcher', root });
    expect(String(got[0]!.reason)).not.toBe('');
    expect(new Date(String(got[0]!.at)).getTime()).toBeGreaterThan(0);
    expect(got[0]!.counts).toMatchObject({ needsYou: 1, suppressed: 0 });
    const notified = (await readJournal(root)).events.filter((e) => e.type === 'notified');
    expect(notified).toMatchObject([{ event: 'escalation', sent: 1, suppressed: 0 }]);
  });

  it('an observer never sends it; a restarted driver fed the same fact again does not resend it', async () => {
    const root = makeWs({ 'ch01/research': 'permission' }, (r) => logRule(r));
    const driver = await start(root);
    const observer = await start(root);
    expect(observer.snapshot().role).toBe('readonly');
    const seen: SupervisorEvent[] = [];
    observer.subscribe((e) => seen.push(e));
    const failed = (await driver.launch('ch01', 'research')).outcome;
    expect(failed).toBe('escalated');
    await observer.refresh(); // the observer replays the escalation from the journal …
    expect(seen.some((e) => e.type === 'failed' && e.escalated)).toBe(true);
    await observer.close();
    await driver.close();
    expect(alarmsIn(root)).toHaveLength(1); // … and sends nothing
    // A new driver's alarms, fed the very event again (the same journal facts): the journal says it was sent.
    const again = await start(root);
    const cfg = await loadConfig(root);
    const host = hostOf(root, cfg, () => again.snapshot().ledger);
    const alarms = createAlarms(host, cfg.notify!);
    const e = seen.find((x) => x.type === 'failed')!;
    alarms.see(e);
    alarms.see(e);
    await alarms.settle();
    expect(alarmsIn(root)).toHaveLength(1);
  });

  it('dedupes the same event and caps a storm: at most max per window, then one summary', async () => {
    const root = makeWs({}, (r) => ['  storm: { max: 3, window: 1h }', ...logRule(r)]);
    const cfg = await loadConfig(root);
    const ledger = replayJournal([], Date.now(), { breaker: cfg.breaker, limits: cfg.limits });
    const alarms = createAlarms(hostOf(root, cfg, () => ledger), cfg.notify!);
    const esc = (unit: string): SupervisorEvent => ({ type: 'failed', unit, step: 'research', class: 'PERMISSION', escalated: true, reason: 'EACCES', logPath: null, message: '' });
    for (let i = 1; i <= 10; i++) {
      alarms.see(esc(`ch${String(i).padStart(2, '0')}`));
    }
    alarms.see(esc('ch10')); // the same fact as the last one (same clock): once
    await alarms.settle();
    const got = alarmsIn(root);
    expect(got.map((a) => a.event)).toEqual(['escalation', 'escalation', 'escalation', 'suppressed']);
    expect(got[3]).toMatchObject({ reason: expect.stringMatching(/^7 more alarms suppressed/), counts: { suppressed: 7 } });
    const notified = (await readJournal(root)).events.filter((e) => e.type === 'notified');
    expect(notified).toHaveLength(10);
    expect(notified.filter((e) => e.type === 'notified' && e.suppressed === 1)).toHaveLength(7);
  });

  it('a hanging notifier is killed at its timeout, reported once, and the pipeline goes on', async () => {
    const root = makeWs({ 'ch01/research': 'permission', 'ch02/draft': 'permission' }, (r) => [
      '  timeout: 2s',
      '  commands:',
      `    - { on: [escalation], command: [node, ${JSON.stringify(notifier(r, 'hang'))}, ${JSON.stringify(join(r, 'hang'))}] }`,
    ]);
    const events: SupervisorEvent[] = [];
    const s = await start(root, events);
    expect((await s.launch('ch01', 'research')).outcome).toBe('escalated');
    // The pipeline goes on while the notifier hangs: another cell runs to done, another escalates.
    expect((await s.launch('ch02', 'research')).outcome).toBe('done');
    expect((await s.launch('ch02', 'draft')).outcome).toBe('escalated');
    await s.close();
    const pid = Number(readFileSync(join(root, 'hang.pid'), 'utf8'));
    expect(alive(pid)).toBe(false); // SIGTERM ignored: SIGKILL after the grace
    const notices = events.filter((e) => e.type === 'notice' && e.message.startsWith('notify:'));
    expect(notices).toHaveLength(1);
    expect(notices[0]!.message).toMatch(/no exit within 2000 ms: killed/);
    expect((await readJournal(root)).events.filter((e) => e.type === 'notified')).toHaveLength(2);
  });

  it('a failing notifier is reported once, with what it said', async () => {
    const root = makeWs({ 'ch01/research': 'permission', 'ch02/research': 'permission' }, (r) => ['  commands:', `    - { on: [escalation], command: [node, ${JSON.stringify(notifier(r, 'fail'))}] }`]);
    const events: SupervisorEvent[] = [];
    const s = await start(root, events);
    await s.launch('ch01', 'research');
    await s.launch('ch02', 'research');
    await s.close();
    const notices = events.filter((e) => e.type === 'notice' && e.message.startsWith('notify:'));
    expect(notices.map((e) => e.message)).toEqual([expect.stringMatching(/failed \(exit 3: no route to the pager\); the pipeline goes on/)]);
  });
});

describe('notify: a breaker open for long', () => {
  it('is announced once after breaker_open_after, naming the agent', async () => {
    const root = makeWs({ 'ch01/research': 'broken_build' }, (r) => ['  breaker_open_after: 400ms', ...logRule(r, '[breaker_open_long]')]);
    const yaml = join(root, 'checkroom.yaml');
    writeFileSync(yaml, readFileSync(yaml, 'utf8').replace('breaker: { threshold: 50 }', 'breaker: { threshold: 1, cooldown: 1h, max_cooldown: 1h }'));
    const s = await start(root);
    const run = s.launch('ch01', 'research');
    for (let t = 0; t < 2400 && alarmsIn(root).length === 0; t++) await new Promise((res) => setTimeout(res, 25));
    expect(alarmsIn(root)).toMatchObject([{ event: 'breaker_open_long', agent: 'researcher', cell: null, reason: expect.stringMatching(/^breaker researcher not closed for/) }]);
    s.cancel('ch01/research');
    await run;
    await s.close({ cancel: true });
    expect(alarmsIn(root)).toHaveLength(1);
  });
});

describe('one notifier process', () => {
  it('at its timeout its whole process group is killed, a grandchild too', async () => {
    const root = tempDir('checkroom-notifier-');
    const pids = join(root, 'pids');
    const script = `const {spawn}=require('node:child_process');const fs=require('node:fs');const c=spawn(process.execPath,['-e','setInterval(()=>{},1000)'],{stdio:'ignore'});fs.writeFileSync(${JSON.stringify(pids)},process.pid+' '+c.pid);setInterval(()=>{},1000);`;
    const r = await runNotifier([process.execPath, '-e', script], '{}\n', { cwd: root, timeoutMs: 800 });
    expect(r).toEqual({ ok: false, why: 'no exit within 800 ms: killed' });
    for (const pid of readFileSync(pids, 'utf8').split(' ').map(Number)) {
      for (let t = 0; t < 40 && alive(pid); t++) await new Promise((res) => setTimeout(res, 25));
      expect(alive(pid)).toBe(false);
    }
    expect(await runNotifier(['/nonexistent/notifier'], '', { cwd: root, timeoutMs: 800 })).toEqual({ ok: false, why: 'cannot start /nonexistent/notifier: ENOENT' });
  });
});

describe('the storm summary', () => {
  it('goes out by itself once the window has room again, before any close', async () => {
    const root = makeWs({}, (r) => ['  storm: { max: 1, window: 300ms }', ...logRule(r)]);
    const cfg = (await loadConfig(root)).notify!;
    const senders = createSenders({ root, now: Date.now, emit: () => undefined, summary: (reason, held) => JSON.stringify({ event: 'suppressed', reason, held }) + '\n' }, cfg);
    const verdicts = [0, 1, 2].map(() => senders.admit([0]));
    expect(verdicts.map((v) => v.go.length)).toEqual([1, 0, 0]);
    senders.send(verdicts[0]!.go, JSON.stringify({ event: 'escalation' }) + '\n');
    for (let t = 0; t < 400 && alarmsIn(root).length < 2; t++) await new Promise((res) => setTimeout(res, 25));
    expect(alarmsIn(root)).toEqual([{ event: 'escalation' }, { event: 'suppressed', reason: '2 more alarms suppressed (at most 1 per 300ms)', held: 2 }]);
    await senders.settle();
    expect(alarmsIn(root)).toHaveLength(2); // nothing more owed
  });
});

describe('notify: headless, as cron runs it', () => {
  it('`checkroom run --next --auto` with no terminal sends the escalation, then exits', () => {
    const root = makeWs({ 'ch01/research': 'permission' }, (r) => logRule(r, '[escalation, autopilot_paused, batch_complete]'));
    const r = spawnSync('node', [CLI, 'run', root, '--next', '--auto', '--max', '2'], { encoding: 'utf8', input: '', env: { ...process.env, NO_COLOR: '1' }, timeout: 60_000 });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(1); // an escalation is a failed run
    const got = alarmsIn(root).filter((a) => a.event === 'escalation');
    expect(got).toMatchObject([{ cell: 'ch01/research', class: 'PERMISSION' }]);
  });

  it('a batch and each phase the run completes are announced once each, with the counts', () => {
    const root = makeWs({}, (r) => logRule(r, '[batch_complete, phase_complete]'));
    const yaml = join(root, 'checkroom.yaml');
    writeFileSync(yaml, readFileSync(yaml, 'utf8').replaceAll('[ch01, ch02]', '[ch01]'));
    const r = spawnSync('node', [CLI, 'run', root, '--next', '--auto'], { encoding: 'utf8', input: '', env: { ...process.env, NO_COLOR: '1' }, timeout: 120_000 });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const got = alarmsIn(root);
    expect(got.map((a) => `${a.event}:${a.batch ?? a.phase}`).sort()).toEqual(['batch_complete:1', 'phase_complete:3', 'phase_complete:4', 'phase_complete:5']);
    expect(got.find((a) => a.event === 'batch_complete')).toMatchObject({ reason: 'Batch 1 complete: 8/8 done', counts: { done: expect.any(Number), total: expect.any(Number) } });
  });
});
