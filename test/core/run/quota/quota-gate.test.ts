import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../../../src/pipeline/config/config.js';
import type { JournalEvent } from '../../../../src/run/journal/journal.js';
import { replayJournal } from '../../../../src/run/journal/ledger-fold.js';
import { accountOf } from '../../../../src/run/quota/account.js';
import { QUOTA_WAITS_MAX, quotaHitOf, quotaWaitOf, quotaWords } from '../../../../src/run/quota/gate.js';
import { pickLaunches } from '../../../../src/run/supervisor/autopilot.js';
import { continueFor } from '../../../../src/run/supervisor/agent.js';
import { targetOf } from '../../../../src/run/attempt/launch-spec.js';
import { journalNews } from '../../../../src/run/journal/news.js';
import { quotaOfExit } from '../../../../src/run/quota/fold.js';
import type { NextStep } from '../../../../src/types.js';
import { agentDef } from '../../../helpers/agent.js';
import { PHASE_1_2, summaries, tempDir, writeFiles } from '../../../helpers/workspace.js';

// The decision every entry point and every executor shares (docs/quota.md): whose account an
// agent spends, whether a finished attempt announces an account-wide wait, what the journal
// makes of it (no attempt, cap, breaker failure or consecutive failure counted, surviving a
// replay), and what autopilot and `run --next` pick meanwhile — local, Slurm or Kubernetes.

const cfg = { breaker: { threshold: 1, cooldownMs: 60_000, maxCooldownMs: 60_000 }, limits: { maxLaunches: 50, maxConsecutiveFailures: 1 } };

const T = 1_800_000_000_000;
const launch = (runId: string, at: number, agent = 'writer', executor?: 'slurm'): JournalEvent => ({
  v: 1, type: 'launch', at, runId, unit: 'ch01', step: 'draft', agent, attempt: 1, argv: ['claude'], cwd: '/w', logPath: `/w/${runId}.log`,
  pid: 100, procStart: 7, outputPath: null, ...(executor ? { executor, jobId: '12' } : {}),
});
const exit = (runId: string, at: number, quota?: { until: number }, agent = 'writer'): JournalEvent => ({
  v: 1, type: 'exit', at, runId, unit: 'ch01', step: 'draft', agent, exitCode: 1, signal: null, class: 'RATE_LIMITED',
  markerFound: false, cmdFp: 'c', errFp: 'e', keywords: [], errorTail: ['Claude AI usage limit reached|1800000060'], durationMs: 10,
  ...(quota ? { quota: { account: 'claude-code:abc', label: 'claude-code key abc123 (ANTHROPIC_API_KEY)', until: quota.until, source: 'usage-limit' } } : {}),
});

describe('accountOf: adapter and key identity, never the key', () => {
  it('agents on the same key share an account; another key, another account; the agent env wins', () => {
    const a = accountOf(agentDef({ name: 'a', adapter: 'claude-code', env: { ANTHROPIC_API_KEY: 'sk-ant-secret-1' } }), {});
    const b = accountOf(agentDef({ name: 'b', adapter: 'claude-code', env: {} }), { ANTHROPIC_API_KEY: 'sk-ant-secret-1' });
    const c = accountOf(agentDef({ name: 'c', adapter: 'claude-code', env: { ANTHROPIC_API_KEY: 'sk-ant-secret-2' } }), { ANTHROPIC_API_KEY: 'sk-ant-secret-1' });
    expect(a.id).toBe(b.id);
    expect(c.id).not.toBe(a.id);
    expect(a.id).toMatch(/^claude-code:[0-9a-f]{12}$/);
    for (const x of [a, b, c]) expect(JSON.stringify(x)).not.toMatch(/secret/);
  });

  it('another adapter on the same key is another account; no key is the CLI login', () => {
    const env = { GEMINI_API_KEY: 'g' };
    expect(accountOf(agentDef({ adapter: 'jsonl' }), env).id).not.toBe(accountOf(agentDef({ adapter: 'claude-code' }), env).id);
    expect(accountOf(agentDef({ adapter: 'claude-code' }), {})).toEqual({ id: 'claude-code:login', label: 'claude-code login' });
  });
});

describe('quotaHitOf: which failures are an account-wide wait', () => {
  const reset = { until: T + 3000, source: 'usage-limit' };
  const ag = agentDef({ adapter: 'claude-code', env: { ANTHROPIC_API_KEY: 'k' } });
  it('a rate limit or an unknown failure with a reset ahead is; a stall, a cancel or a success is not', () => {
    expect(quotaHitOf('RATE_LIMITED', reset, ag, 0)).toMatchObject({ account: accountOf(ag).id, until: T + 3000, source: 'usage-limit' });
    expect(quotaHitOf('UNKNOWN', reset, ag, 0)).not.toBeNull();
    for (const cls of ['STALLED', 'CANCELLED', 'SUCCESS', 'PERMISSION', 'INFRA']) expect(quotaHitOf(cls, reset, ag, 0)).toBeNull();
    expect(quotaHitOf('RATE_LIMITED', null, ag, 0)).toBeNull();
  });
  it('a wait must end: past QUOTA_WAITS_MAX in a row the next one counts like any rate limit', () => {
    expect(quotaHitOf('RATE_LIMITED', reset, ag, QUOTA_WAITS_MAX - 1)).not.toBeNull();
    expect(quotaHitOf('RATE_LIMITED', reset, ag, QUOTA_WAITS_MAX)).toBeNull();
  });
});

describe('the journal: a quota exit is a wait, not a counted failure', () => {
  it('no attempt, count, breaker failure or consecutive failure moves; the wait holds until the reset, across a replay', () => {
    const events = [launch('r1', T), exit('r1', T + 10, { until: T + 3000 })];
    const l = replayJournal(events, T + 100, cfg);
    const c = l.cells['ch01/draft']!;
    expect(c.attempts).toEqual([]);
    expect(c.counts).toEqual({});
    expect(c).toMatchObject({ state: 'retrying', nextRetryAt: T + 3000, quota: { account: 'claude-code:abc', until: T + 3000 }, quotaStreak: 1 });
    expect(c.reason).toMatch(/^waiting for the account's reset at /);
    expect(l.agents.writer!.breaker.consecutiveFailures).toBe(0);
    expect(l.agents.writer!.canLaunch).toBe(true);
    expect(l.consecutiveFailures).toBe(0);
    expect(l.paused).toBe(false);
    expect(l.quotaWaits['claude-code:abc']).toMatchObject({ until: T + 3000, agent: 'writer' });
    // At the reset the wait is over; the next launch clears the cell's mark.
    expect(replayJournal(events, T + 3000, cfg).quotaWaits).toEqual({});
    const relaunched = replayJournal([...events, launch('r2', T + 3001)], T + 3002, cfg).cells['ch01/draft']!;
    expect(relaunched.quota).toBeNull();
  });

  it('the same exit without a reset is counted: the breaker opens and the global limit pauses (the contrast)', () => {
    const l = replayJournal([launch('r1', T), exit('r1', T + 10)], T + 100, cfg);
    expect(l.cells['ch01/draft']!.attempts).toHaveLength(1);
    expect(l.agents.writer!.canLaunch).toBe(false);
    expect(l.paused).toBe(true);
  });

  it('a cluster job on its quota leaves the executor’s infra breaker closed', () => {
    const l = replayJournal([launch('r1', T, 'writer', 'slurm'), exit('r1', T + 10, { until: T + 3000 })], T + 100, cfg);
    expect(Object.values(l.agents).every((a) => a.breaker.consecutiveFailures === 0)).toBe(true);
  });

  it('a malformed or misplaced quota on an exit is not a wait: the exit counts as it always did', () => {
    const base = exit('r1', T + 10, { until: T + 3000 }) as Extract<JournalEvent, { type: 'exit' }>;
    expect(quotaOfExit(base)).toMatchObject({ until: T + 3000 });
    for (const bad of [{ ...base, quota: { ...base.quota!, until: 'soon' as unknown as number } }, { ...base, quota: { ...base.quota!, until: Infinity } }, { ...base, class: 'SUCCESS' as const }, { ...base, class: 'CANCELLED' as const }]) {
      expect(quotaOfExit(bad)).toBeNull();
    }
    const l = replayJournal([launch('r1', T), { ...base, quota: { ...base.quota!, until: 'soon' as unknown as number } }], T + 100, cfg);
    expect(l.cells['ch01/draft']!.attempts).toHaveLength(1);
  });

  it('an observer hears a wait, not a failure', () => {
    const news = journalNews();
    news.feed([]);
    const said = news.feed([launch('r1', T), exit('r1', T + 10, { until: T + 3000 }), launch('r2', T + 3001)]);
    expect(said.map((e) => e.type)).toEqual(['launch', 'notice', 'launch']);
    expect(said[1]!.message).toMatch(/ch01 draft: waiting for the account's reset at .*; not counted as an attempt/);
  });
});

describe('every entry point and executor asks the same decision', () => {
  const workspace = async () => {
    const root = tempDir('checkroom-quota-gate-');
    writeFiles(root, { ...PHASE_1_2, 'meta/chapter-summaries.md': summaries([]) });
    const agent = (name: string, key: string, executor: string) =>
      [`  ${name}:`, '    adapter: claude-code', "    prompt: 'write {output}'", `    env: { ANTHROPIC_API_KEY: ${key} }`, `    executor: ${executor}`];
    writeFileSync(
      join(root, 'checkroom.yaml'),
      ['preset: book', 'units: { list: [ch01] }', 'batches: [{ id: 1, units: [ch01] }]', 'agents:', ...agent('researcher', 'key-a', 'local'), ...agent('writer', 'key-a', 'slurm'), ...agent('reviewer', 'key-a', 'kubernetes'), ...agent('editor', 'key-b', 'slurm'), ''].join('\n'),
    );
    return { root, config: await loadConfig(root) };
  };

  it('autopilot and run --next hold every agent of the waiting account, wherever it runs, and pick the other account', async () => {
    const { config } = await workspace();
    const account = accountOf(config.agents.researcher!);
    expect(accountOf(config.agents.writer!).id).toBe(account.id);
    const events: JournalEvent[] = [
      launch('r1', T, 'researcher'),
      { ...(exit('r1', T + 10, { until: T + 60_000 }, 'researcher') as Extract<JournalEvent, { type: 'exit' }>), step: 'research', quota: { account: account.id, label: account.label, until: T + 60_000, source: 'usage-limit' } },
    ];
    const ledger = replayJournal(events, T + 100, cfg);
    const plan: NextStep[] = ['research', 'draft', 'r1', 'review'].map((step) => ({ priority: 3, unit: 'ch01', step, action: 'run', reason: 'ready', blocks: 0 }));
    const pick = pickLaunches({ plan, ledger, config, inFlight: new Map(), budget: 10, redoHalfProducts: true, now: T + 100 });
    expect(pick.launch.map((c) => c.step)).toEqual(['review']);
    expect(pick.blocked.map((b) => [b.step, b.quotaUntil, b.retryInMs])).toEqual([
      ['research', T + 60_000, 59_900],
      ['draft', T + 60_000, 59_900],
      ['r1', T + 60_000, 59_900],
    ]);
    expect(pick.blocked[0]!.why).toBe(quotaWords(ledger.quotaWaits[account.id]!, T + 100));
    // At the reset everything goes.
    const later = pickLaunches({ plan, ledger: replayJournal(events, T + 60_000, cfg), config, inFlight: new Map(), budget: 10, redoHalfProducts: true, now: T + 60_000 });
    expect(later.launch.map((c) => c.step)).toEqual(['research', 'draft', 'r1', 'review']);
    expect(quotaWaitOf(ledger.quotaWaits, config.agents.editor!, T + 100)).toBeNull();
    expect(quotaWaitOf(ledger.quotaWaits, config.agents.reviewer!, T + 100)?.until).toBe(T + 60_000);
  });

  it('at the reset the cell continues its session, for whoever launches it', async () => {
    const { root, config } = await workspace();
    const account = accountOf(config.agents.researcher!);
    const events: JournalEvent[] = [
      launch('r1', T, 'researcher'),
      { v: 1, type: 'agent_facts', at: T + 5, runId: 'r1', unit: 'ch01', step: 'research', agent: 'researcher', sessionId: 'sess-1', costUsd: 0, tokensIn: 0, tokensOut: 0, cacheRead: 0, cacheWrite: 0, apiRetries: 0, cutMidTool: false },
      { ...(exit('r1', T + 10, undefined, 'researcher') as Extract<JournalEvent, { type: 'exit' }>), step: 'research', quota: { account: account.id, label: account.label, until: T + 3000, source: 'usage-limit' } },
    ];
    const l = replayJournal(events, T + 3000, cfg);
    const t = targetOf(root, config, 'ch01', 'research');
    expect(continueFor(l, t, 'ch01', false, false)).toEqual({ mode: 'resume', sessionId: 'sess-1', halfProduct: 'research/ch01-research.md' });
  });
});
