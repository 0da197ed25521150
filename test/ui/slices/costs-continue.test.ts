import { describe, expect, it } from 'vitest';
import { budgetReasonOf } from '../../../src/run/journal/costs.js';
import { budgetSpent } from '../../../src/ui/views/spend.js';
import { replayJournal } from '../../../src/run/journal/ledger-fold.js';
import type { JournalEvent } from '../../../src/run/journal/journal.js';
import { continueFor } from '../../../src/run/supervisor/agent.js';
import type { CellTarget } from '../../../src/run/attempt/launch-spec.js';
import type { AgentDef } from '../../../src/pipeline/config/types.js';
import { agentDef } from '../../helpers/agent.js';

// Money, tokens and sessions folded from the journal (issue 11 items 4 and 5), on plain events.

const cfg = { breaker: { threshold: 3, cooldownMs: 1000, maxCooldownMs: 5000 }, limits: { maxLaunches: 100, maxConsecutiveFailures: 10 } };
const facts = (runId: string, at: number, o: { cost?: number | null; in?: number; out?: number; sid?: string | null; unit?: string } = {}): JournalEvent => ({
  v: 1,
  type: 'agent_facts',
  at,
  runId,
  unit: o.unit ?? 'ch01',
  step: 'draft',
  agent: 'writer',
  sessionId: o.sid === undefined ? `s-${runId}` : o.sid,
  costUsd: o.cost === undefined ? 0.5 : o.cost,
  tokensIn: o.in ?? 1000,
  tokensOut: o.out ?? 200,
  cacheRead: 0,
  cacheWrite: 0,
  apiRetries: 0,
  cutMidTool: false,
});
const session = (at: number): JournalEvent => ({ v: 1, type: 'session', at, kind: 'start', pid: 1 });
const launch = (runId: string, at: number): JournalEvent => ({ v: 1, type: 'launch', at, runId, unit: 'ch01', step: 'draft', agent: 'writer', attempt: 1, argv: ['claude'], cwd: '/w', logPath: '/w/l', pid: 1, procStart: 1, outputPath: '/w/drafts/ch01-draft.md' });
const exit = (runId: string, at: number, cls: string): JournalEvent => ({ v: 1, type: 'exit', at, runId, unit: 'ch01', step: 'draft', agent: 'writer', exitCode: 1, signal: null, class: cls as 'STALLED', markerFound: false, cmdFp: 'c', errFp: 'e', keywords: [], errorTail: [], durationMs: 1 });
const reaped = (runId: string, at: number): JournalEvent => ({ v: 1, type: 'reaped', at, runId, pid: 1, outcome: 'dead' });

describe('the cost fold', () => {
  it("a run's later report replaces its earlier one; sessions restart at 0, the workspace does not", () => {
    const l = replayJournal([session(0), facts('a', 1, { cost: null, in: 0, out: 0 }), facts('a', 2), facts('b', 3), session(4), facts('c', 5, { cost: 0.25, unit: 'ch02' })], 10, cfg);
    expect(l.costs.workspace).toEqual({ costUsd: 1.25, tokensIn: 3000, tokensOut: 600, attempts: 3 });
    expect(l.costs.session).toEqual({ costUsd: 0.25, tokensIn: 1000, tokensOut: 200, attempts: 1 });
    expect(l.costs.cells['ch01/draft']).toEqual({ costUsd: 1, tokensIn: 2000, tokensOut: 400, attempts: 2 });
    expect(l.costs.agents.writer!.attempts).toBe(3);
  });

  it('token budgets and workspace budgets pause; the reason names the limit to raise', () => {
    const l = replayJournal([session(0), facts('a', 1)], 10, cfg);
    const none = { session: null, workspace: null };
    expect(budgetReasonOf(l.costs, { costUsd: none, tokens: { session: 1200, workspace: null } })).toBe('token budget of this session used (1200 of 1200, limits.max_tokens)');
    expect(budgetReasonOf(l.costs, { costUsd: { session: null, workspace: 0.5 }, tokens: none })).toBe('cost budget of this workspace used ($0.50 of $0.50, limits.max_cost_usd.workspace)');
    expect(budgetReasonOf(l.costs, { costUsd: { session: 0.51, workspace: null }, tokens: { session: 1201, workspace: null } })).toBeNull();
    const paused = replayJournal([session(0), facts('a', 1)], 10, { ...cfg, limits: { ...cfg.limits, budget: { costUsd: { session: 0.5, workspace: null }, tokens: none } } });
    expect(paused.paused).toBe(true);
    expect(paused.pausedReason).toMatch(/cost budget of this session used/);
  });

  it("the header's warning follows the spent budget itself, not a pause reason's words (a launch-budget pause is not a spent budget)", () => {
    const l = replayJournal([session(0), facts('a', 1)], 10, cfg);
    const none = { session: null, workspace: null };
    expect(budgetSpent(l.costs, { costUsd: { session: 0.5, workspace: null }, tokens: none })).toBe(true);
    expect(budgetSpent(l.costs, { costUsd: { session: 0.51, workspace: null }, tokens: none })).toBe(false);
    expect(budgetSpent(l.costs, undefined)).toBe(false);
    expect(budgetSpent(undefined, { costUsd: { session: 0, workspace: null }, tokens: none })).toBe(false);
  });
});

describe('continue: which session the next attempt resumes', () => {
  const agent = (over: Partial<AgentDef> = {}): AgentDef => agentDef({ idleTimeoutMs: 1, timeoutMs: 1, adapter: 'claude-code', onInterrupt: 'continue', ...over });
  const target = (a: AgentDef): CellTarget => ({ step: { id: 'draft' } as CellTarget['step'], agent: a, outputAbs: '/w/drafts/ch01-draft.md', outputRel: 'drafts/ch01-draft.md', marker: 'DRAFT_COMPLETE' });

  it('a stalled attempt with a session is continued by policy; a restart agent only when the operator asks', () => {
    const l = replayJournal([session(0), launch('a', 1), facts('a', 2), exit('a', 3, 'STALLED')], 10, cfg);
    expect(continueFor(l, target(agent()), 'ch01', false)).toEqual({ mode: 'resume', sessionId: 's-a', halfProduct: 'drafts/ch01-draft.md' });
    expect(continueFor(l, target(agent({ onInterrupt: undefined })), 'ch01', false)).toBeNull();
    expect(continueFor(l, target(agent({ onInterrupt: undefined })), 'ch01', true)?.sessionId).toBe('s-a');
    expect(continueFor(l, target(agent({ adapter: undefined })), 'ch01', true)).toBeNull();
  });

  it('a run reaped after checkroom died keeps the session it journalled while running', () => {
    const l = replayJournal([session(0), launch('a', 1), facts('a', 2, { cost: null }), session(5), reaped('a', 6)], 10, cfg);
    expect(continueFor(l, target(agent()), 'ch01', false)?.sessionId).toBe('s-a');
  });

  it('an answered failure (not an interruption) starts fresh unless the operator asks; a success never continues', () => {
    const failed = replayJournal([session(0), launch('a', 1), facts('a', 2), exit('a', 3, 'RATE_LIMITED')], 10, cfg);
    expect(continueFor(failed, target(agent()), 'ch01', false)).toBeNull();
    const done = replayJournal([session(0), launch('a', 1), facts('a', 2), exit('a', 3, 'SUCCESS')], 10, cfg);
    expect(continueFor(done, target(agent()), 'ch01', true)).toBeNull();
  });
});
