import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { appendJournal } from '../../../../src/run/journal/journal.js';
import { accountOf } from '../../../../src/run/quota/account.js';
import { join } from 'node:path';
import { loadConfig } from '../../../../src/pipeline/config/config.js';
import { readJournal, type JournalEvent } from '../../../../src/run/journal/journal.js';
import { openSupervisor, type Supervisor, type SupervisorEvent } from '../../../../src/run/supervisor/supervisor.js';
import { buildOperatorModel } from '../../../../src/operator/model.js';
import { loadWorkspace } from '../../../../src/workspace.js';
import { PHASE_1_2, REPO, summaries, tempDir, writeFiles } from '../../../helpers/workspace.js';

// Quota-aware waits (docs/quota.md), on real processes: a fake Claude Code that prints the
// CLI's real usage-limit line with a reset 3 s ahead and exits 1. Both agents on that key's
// account wait for the reset and continue their sessions; an agent on another key runs at
// once; no wait is a counted attempt — with a RATE_LIMITED cap of 1 and a breaker that opens
// at the first failure, one counted failure would escalate the cell or block its agent.

const AGENT = join(REPO, 'test', 'fixtures', 'quota-agent.mjs');

const open: Supervisor[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close({ cancel: true });
});

const agent = (name: string, key: string): string[] => [
  `  ${name}:`,
  '    adapter: claude-code',
  `    bin: ${JSON.stringify(AGENT)}`,
  "    prompt: 'Write {output}; its last line is <!-- {marker} -->'",
  "    args: ['--out', '{output}', '--mk', '{marker}', '--ws', '{workspace}']",
  '    permission_mode: acceptEdits',
  `    env: { ANTHROPIC_API_KEY: ${key} }`,
  '    idle_timeout: 60s',
  '    grace: 200ms',
];

/** researcher and writer share key-a; reviewer has key-b. key-a's first calls hit its usage limit, with a reset `delayS` ahead of the first. */
function quotaWorkspace(delayS: number): string {
  const root = tempDir('checkroom-quota-');
  writeFiles(root, { ...PHASE_1_2, 'meta/chapter-summaries.md': summaries([]), 'delay-key-a': String(delayS) });
  const yaml = [
    'preset: book',
    'units: { list: [ch01, ch02] }',
    'batches: [{ id: 1, units: [ch01, ch02] }]',
    'agents:',
    ...agent('researcher', 'key-a'),
    ...agent('writer', 'key-a'),
    ...agent('reviewer', 'key-b'),
    'limits:',
    '  backoff_base: 20ms',
    '  backoff_max: 100ms',
    '  caps: { RATE_LIMITED: 1 }',
    'breaker: { threshold: 1, cooldown: 10m }',
    '',
  ];
  writeFileSync(join(root, 'checkroom.yaml'), yaml.join('\n'));
  return root;
}

type Ev<T extends JournalEvent['type']> = Extract<JournalEvent, { type: T }>;
const all = async <T extends JournalEvent['type']>(root: string, type: T): Promise<Ev<T>[]> => (await readJournal(root)).events.filter((e): e is Ev<T> => e.type === type);
const until = async (ok: () => unknown): Promise<void> => {
  while (!ok()) await new Promise((r) => setTimeout(r, 50));
};
const calls = (root: string): { out: string; resume: string | null; key: string; at: number; limited: boolean }[] =>
  readFileSync(join(root, 'calls.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));

describe('quota-aware waits, real processes', () => {
  it('two agents on one account wait for its reset and resume their sessions; another account runs; no attempt is counted', async () => {
    const root = quotaWorkspace(3);
    const events: SupervisorEvent[] = [];
    const s = await openSupervisor({ root, config: await loadConfig(root), rand: () => 0.5, onEvent: (e) => events.push(e) });
    open.push(s);
    const research = s.launch('ch01', 'research');
    const draft = s.launch('ch01', 'draft');
    const review = s.launch('ch01', 'r1');

    // The other account's agent is not held back: it finishes while the two wait.
    expect((await review).outcome).toBe('done');
    await until(() => ['ch01/research', 'ch01/draft'].every((k) => s.snapshot().ledger.cells[k]?.quota));
    const waiting = s.snapshot();
    const acct = Object.values(waiting.ledger.quotaWaits);
    expect(acct).toHaveLength(1);
    // One wait for the account: the latest reset the two announced. The supervisor folds an
    // event before its append reaches the file (journal.ts), so the file is read once it has both.
    let quotaExits: Ev<'exit'>[] = [];
    for (let i = 0; i < 200 && quotaExits.length < 2; i++) {
      quotaExits = (await all(root, 'exit')).filter((e) => e.quota);
      if (quotaExits.length < 2) await new Promise((r) => setTimeout(r, 25));
    }
    expect(quotaExits.map((e) => e.step).sort()).toEqual(['draft', 'research']);
    const reset = Math.max(...quotaExits.map((e) => e.quota!.until));
    expect(acct[0]!.until).toBe(reset);
    expect(reset).toBe(Number(readFileSync(join(root, 'limit-key-a'), 'utf8')) * 1000);
    expect(acct[0]!.label).toMatch(/^claude-code key [0-9a-f]{6} \(ANTHROPIC_API_KEY\)$/);
    expect(JSON.stringify(waiting.ledger)).not.toContain('key-a');

    // An observer folds the same journal: the same one countdown, at one clock reading before the reset.
    const observer = await openSupervisor({ root, config: await loadConfig(root), readonly: true });
    open.push(observer);
    const ws = await loadWorkspace(root);
    const at = Math.max(...quotaExits.map((e) => e.at));
    // The cells stopped on the account, in key order (operator/quota.ts).
    const stopped = quotaExits.map((e) => ({ unit: e.unit, step: e.step })).sort((a, b) => `${a.unit}/${a.step}`.localeCompare(`${b.unit}/${b.step}`, 'en', { numeric: true }));
    const seenByDriver = buildOperatorModel(ws, { snap: s.snapshot(), limits: null, concurrency: {} }, at).quota;
    const seenByObserver = buildOperatorModel(ws, { snap: observer.snapshot(), limits: null, concurrency: {} }, at).quota;
    expect(seenByObserver).toEqual(seenByDriver);
    expect(seenByDriver).toEqual([{ account: acct[0]!.account, label: acct[0]!.label, deadline: reset, agents: ['researcher', 'writer'], cells: 2, waiting: stopped }]);
    expect(observer.snapshot().ledger.cells['ch01/research']?.nextRetryAt).toBe(reset);
    // The other account's agent runs meanwhile (the refusal on this one: the CLI, store and restart tests).
    expect((await s.launch('ch02', 'r1')).outcome).toBe('done');

    expect((await research).outcome).toBe('done');
    expect((await draft).outcome).toBe('done');

    const exits = await all(root, 'exit');
    const launches = (await all(root, 'launch')).filter((e) => e.unit === 'ch01');
    for (const step of ['research', 'draft']) {
      const mine = launches.filter((l) => l.step === step);
      // Launched twice, as attempt 1 both times: the wait did not move the attempt counter.
      expect(mine.map((l) => l.attempt)).toEqual([1, 1]);
      // The second launch is at or after the account's reset, and continues the first one's session.
      expect(mine[1]!.at).toBeGreaterThanOrEqual(reset);
      const first = calls(root).find((c) => c.out.endsWith(step === 'research' ? 'research/ch01-research.md' : 'drafts/ch01-draft.md') && c.resume === null)!;
      expect(first.limited).toBe(true);
      const resumed = calls(root).find((c) => c.out.endsWith(step === 'research' ? 'research/ch01-research.md' : 'drafts/ch01-draft.md') && c.resume !== null)!;
      expect(resumed.limited).toBe(false);
      expect(mine[1]!.argv).toContain('--resume');
      const quotaExit = exits.find((e) => e.step === step && e.quota)!;
      expect(quotaExit.quota).toMatchObject({ source: 'usage-limit' });
      expect(quotaExit.class).toBe('RATE_LIMITED');
    }
    // Not one counted failure: no retry scheduled, no escalation, caps and breakers untouched.
    expect(await all(root, 'retry_scheduled')).toEqual([]);
    expect(await all(root, 'escalate')).toEqual([]);
    const l = s.snapshot().ledger;
    for (const key of ['ch01/research', 'ch01/draft']) {
      expect(l.cells[key]!.attempts.map((a) => a.class)).toEqual(['SUCCESS']);
      expect(l.cells[key]!.counts).toEqual({});
    }
    for (const name of ['researcher', 'writer']) {
      expect(l.agents[name]!.breaker.consecutiveFailures).toBe(0);
      expect(l.agents[name]!.view.state).toBe('closed');
    }
    expect(l.consecutiveFailures).toBe(0);
    // The operator was told, once per cell, that it waits and why.
    const notices = events.filter((e) => e.type === 'notice' && /waiting for the account's reset at (?:[A-Z][a-z]{2} \d{1,2} )?\d\d:\d\d/.test(e.message));
    expect(notices.length).toBeGreaterThanOrEqual(2);
  }, 60_000);
});

describe('a quota wait survives a restart', () => {
  it('a new session finds the wait in the journal, refuses a launch before the reset, and autopilot resumes the session at it', async () => {
    // Long enough that the new session opens before the reset, even on a loaded machine.
    const root = quotaWorkspace(8);
    const first = await openSupervisor({ root, config: await loadConfig(root), rand: () => 0.5 });
    open.push(first);
    const research = first.launch('ch01', 'research');
    await until(() => first.snapshot().ledger.cells['ch01/research']?.quota);
    // The session ends while the cell waits (a shutdown's cancel: the cell is not held).
    await first.close({ cancel: true });
    await research;
    const second = await openSupervisor({ root, config: await loadConfig(root), rand: () => 0.5 });
    open.push(second);
    const reset = Object.values(second.snapshot().ledger.quotaWaits)[0]!.until;
    expect(reset).toBe(Number(readFileSync(join(root, 'limit-key-a'), 'utf8')) * 1000);
    if (Date.now() < reset - 1000) await expect(second.launch('ch01', 'research')).rejects.toThrow(/waiting for the account's reset at/);
    await second.setAutopilot(true, { maxLaunches: 2 });
    await until(() => second.snapshot().ledger.cells['ch01/research']?.state === 'done');
    const launches = (await all(root, 'launch')).filter((e) => e.unit === 'ch01' && e.step === 'research');
    expect(launches).toHaveLength(2);
    expect(launches[1]!.at).toBeGreaterThanOrEqual(reset);
    expect(launches[1]!.attempt).toBe(1);
    expect(launches[1]!.argv).toContain('--resume');
    expect(second.snapshot().ledger.cells['ch01/research']!.attempts.map((a) => a.class)).toEqual(['SUCCESS']);
  }, 60_000);
});

const BIN = join(REPO, 'dist/bundle/checkroom.js');
const cli = (args: string[]) => spawnSync('node', [BIN, ...args], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, input: '', timeout: 60_000 });

describe('checkroom run while the account waits (the built binary, as cron runs it)', () => {
  it('run UNIT STEP refuses with the reset time; run --next --auto says what it waits for; nothing is launched', async () => {
    const root = quotaWorkspace(600);
    const config = await loadConfig(root);
    const account = accountOf(config.agents.researcher!);
    // An earlier session's researcher stopped on the account's quota, ten minutes before its reset.
    const until = Date.now() + 600_000;
    await appendJournal(root, { type: 'launch', at: Date.now() - 1000, runId: 'earlier', unit: 'ch01', step: 'research', agent: 'researcher', attempt: 1, argv: ['claude'], cwd: root, logPath: join(root, 'x.log'), pid: null, procStart: null, outputPath: null });
    await appendJournal(root, {
      type: 'exit', at: Date.now() - 900, runId: 'earlier', unit: 'ch01', step: 'research', agent: 'researcher', exitCode: 1, signal: null, class: 'RATE_LIMITED',
      markerFound: false, cmdFp: 'c', errFp: 'e', keywords: [], errorTail: [], durationMs: 100, quota: { account: account.id, label: account.label, until, source: 'usage-limit' },
    });
    const one = cli(['run', root, 'ch02', 'research', '--yes']);
    expect(one.status, one.stdout + one.stderr).toBe(1);
    expect(one.stdout).toMatch(/cannot run: ch02 research is not launched: waiting for the account's reset at (?:[A-Z][a-z]{2} \d{1,2} )?\d\d:\d\d(:\d\d)? \(claude-code key [0-9a-f]{6} \(ANTHROPIC_API_KEY\)\); launch it after the reset/);
    const next = cli(['run', root, '--next', '--auto', '--yes']);
    expect(next.stdout, next.stderr).toMatch(/waiting: ch0[12] research: waiting for the account's reset at /);
    expect(next.status).toBe(0);
    expect((await all(root, 'launch')).map((e) => e.runId)).toEqual(['earlier']);
    expect(JSON.stringify((await readJournal(root)).events)).not.toContain('key-a');
  }, 60_000);
});
