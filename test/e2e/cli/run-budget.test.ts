import { afterEach, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { fakeAgentWorkspace, REPO } from '../../helpers/workspace.js';
import { appendJournal, readJournal, type JournalEvent } from '../../../src/run/journal/journal.js';
import { loadConfig } from '../../../src/pipeline/config/config.js';
import { openSupervisor, type Supervisor } from '../../../src/run/supervisor/supervisor.js';

// Issue 17 item 4: budgets are budgets, whoever launches. A spent budget stopped autopilot
// only: `checkroom run UNIT STEP` launched past it without a word (with or without --yes, from
// a terminal or cron), and limits.max_launches reset every session, so a cron loop of
// `run --next --auto` got a fresh budget each time. Driven through the built binary, with
// stdin not a terminal (cron's case).

const BIN = join(REPO, 'dist/bundle/checkroom.js');
const cli = (args: string[]) => spawnSync('node', [BIN, ...args], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, input: '', timeout: 60_000 });
const cliAsync = (args: string[]): Promise<{ status: number | null; stdout: string }> =>
  new Promise((resolve) => {
    const p = spawn('node', [BIN, ...args], { env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    p.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    p.on('close', (status) => resolve({ status, stdout }));
  });

const events = async (root: string): Promise<JournalEvent[]> => (await readJournal(root)).events;
const launches = async (root: string): Promise<number> => (await events(root)).filter((e) => e.type === 'launch').length;

/** A workspace whose journal says $0.05 was spent by an earlier session, with a workspace budget of $0.01. */
async function spentWorkspace(): Promise<string> {
  const root = fakeAgentWorkspace('checkroom-budget-', { units: ['ch01', 'ch02'] });
  appendFileSync(join(root, 'checkroom.yaml'), '  max_cost_usd: { workspace: 0.01 }\n');
  await appendJournal(root, { type: 'session', at: 1, kind: 'start', pid: 1 });
  await appendJournal(root, {
    type: 'agent_facts',
    at: 2,
    runId: 'earlier-run',
    unit: 'ch01',
    step: 'research',
    agent: 'researcher',
    sessionId: null,
    costUsd: 0.05,
    tokensIn: 10,
    tokensOut: 10,
    cacheRead: 0,
    cacheWrite: 0,
    apiRetries: 0,
    cutMidTool: false,
  });
  await appendJournal(root, { type: 'session', at: 3, kind: 'stop', pid: 1 });
  return root;
}

const open: Supervisor[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close({ cancel: true });
});

describe('checkroom run past a spent budget', () => {
  it.each([[[]], [['--yes']]])('refuses a spent workspace cost budget %j: exit 1, the figures, the key, nothing launched', async (flags) => {
    const root = await spentWorkspace();
    const r = cli(['run', root, ...flags, 'ch01', 'research']);
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('cannot run: cost budget of this workspace used ($0.05 of $0.01, limits.max_cost_usd.workspace)');
    expect(r.stdout).toContain('raise limits.max_cost_usd.workspace in checkroom.yaml');
    expect(r.stdout).toContain('--over-budget');
    // Refused before the command is shown or anything launched.
    expect(r.stdout).not.toContain('checkroom will run');
    expect(await launches(root)).toBe(0);
  });

  it('refuses a spent workspace launch budget, with and without --yes', async () => {
    const root = fakeAgentWorkspace('checkroom-budget-', { units: ['ch01', 'ch02'] });
    appendFileSync(join(root, 'checkroom.yaml'), '  max_launches: { workspace: 1 }\n');
    expect(cli(['run', root, '--yes', 'ch01', 'research']).status).toBe(0);
    expect(await launches(root)).toBe(1);
    for (const flags of [[], ['--yes']]) {
      const r = cli(['run', root, ...flags, 'ch02', 'research']);
      expect(r.status).toBe(1);
      expect(r.stdout).toContain('cannot run: launch budget of this workspace used (1 of 1, limits.max_launches.workspace)');
    }
    expect(await launches(root)).toBe(1);
  });

  it('--over-budget goes anyway, and the journal says so before the launch', async () => {
    const root = await spentWorkspace();
    const r = cli(['run', root, '--yes', '--over-budget', 'ch01', 'research']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('over budget: cost budget of this workspace used ($0.05 of $0.01');
    const ev = await events(root);
    const decision = ev.findIndex((e) => e.type === 'decision' && e.kind === 'over_budget');
    expect(decision).toBeGreaterThanOrEqual(0);
    expect(ev[decision]).toMatchObject({ unit: 'ch01', step: 'research', note: expect.stringContaining('limits.max_cost_usd.workspace') });
    expect(ev.findIndex((e) => e.type === 'launch')).toBeGreaterThan(decision);
  });

  it('--over-budget is refused with --next: autopilot never goes past a budget', () => {
    const r = cli(['run', '/tmp', '--next', '--over-budget']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--over-budget goes with <unit> <step>');
  });
});

describe('limits.max_launches.workspace across sessions', () => {
  it('a loop of run --next --auto processes stops at it: each session gets 1, the workspace 3 in all', async () => {
    const root = fakeAgentWorkspace('checkroom-budget-', { units: ['ch01', 'ch02', 'ch03'] });
    appendFileSync(join(root, 'checkroom.yaml'), '  max_launches: { session: 1, workspace: 3 }\n');
    const codes: (number | null)[] = [];
    let last = '';
    for (let i = 0; i < 5; i++) {
      const r = await cliAsync(['run', root, '--next', '--auto', '--yes']);
      codes.push(r.status);
      last = r.stdout;
    }
    expect(await launches(root)).toBe(3);
    // The first three launch one each (and pause at the session's budget); the rest refuse.
    expect(codes.slice(3)).toEqual([1, 1]);
    expect(last).toContain('launch budget of this workspace used (3 of 3, limits.max_launches.workspace)');
  }, 120_000);

  it('the control room\'s launch (keys, socket) and autopilot ask the same decision', async () => {
    const root = await spentWorkspace();
    const s = await openSupervisor({ root, config: await loadConfig(root) });
    open.push(s);
    await expect(s.launch('ch01', 'research')).rejects.toThrow(/cost budget of this workspace used \(\$0\.05 of \$0\.01, limits\.max_cost_usd\.workspace\)/);
    const snap = s.snapshot();
    expect(snap.autopilot.paused).toBe(true);
    expect(snap.autopilot.reason).toContain('limits.max_cost_usd.workspace');
    expect(await launches(root)).toBe(0);
    // The control room's "budget spent" dialog, Enter: the operator's word, journalled first.
    const r = await s.launch('ch01', 'research', { overBudget: true });
    expect(r.outcome).toBe('done');
    const ev = await events(root);
    const said = ev.findIndex((e) => e.type === 'decision' && e.kind === 'over_budget');
    expect(said).toBeGreaterThanOrEqual(0);
    expect(ev.findIndex((e) => e.type === 'launch')).toBeGreaterThan(said);
  });
});

describe('limits.max_launches in checkroom.yaml', () => {
  it('a number is per session; a mapping adds the workspace scope; a bad value says what it takes', async () => {
    const { parseConfig } = await import('../../../src/pipeline/config/config.js');
    expect(parseConfig('limits: { max_launches: 7 }\n', 'checkroom.yaml').limits).toMatchObject({ maxLaunches: 7 });
    expect(parseConfig('limits: { max_launches: 7 }\n', 'checkroom.yaml').limits.maxLaunchesWorkspace).toBeUndefined();
    expect(parseConfig('limits: { max_launches: { workspace: 40 } }\n', 'checkroom.yaml').limits).toMatchObject({ maxLaunches: 200, maxLaunchesWorkspace: 40 });
    expect(parseConfig('limits: { max_launches: { session: 5, workspace: 40 } }\n', 'checkroom.yaml').limits).toMatchObject({ maxLaunches: 5, maxLaunchesWorkspace: 40 });
    expect(() => parseConfig('limits: { max_launches: { workspace: 0 } }\n', 'checkroom.yaml')).toThrow(/an integer from 1 to 100000/);
  });
});
