import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../src/pipeline/config/config.js';
import { readJournal, type JournalEvent } from '../../src/run/journal/journal.js';
import { openSupervisor, type Supervisor, type SupervisorEvent } from '../../src/run/supervisor/supervisor.js';
import { bookResponder } from '../../src/demo/model-server.js';
import { statusJson } from '../../src/cli/json.js';
import { readSpend } from '../../src/cli/json-spend.js';
import { loadWorkspace } from '../../src/workspace.js';
import { claudeWorkspace, finished, writeReply, type ClaudeWs } from '../helpers/claude.js';
import { idle } from '../helpers/idle.js';

// The real Claude Code CLI through the claude-code adapter (issue 11 item 8), against the
// scripted local model server: each fault ends in the class the stream's facts imply.

const opened: { s: Supervisor; ws: ClaudeWs }[] = [];
afterEach(async () => {
  for (const { s, ws } of opened.splice(0)) {
    await s.close({ cancel: true });
    await ws.server.close();
  }
});

const start = async (ws: ClaudeWs, events: SupervisorEvent[] = []): Promise<Supervisor> => {
  const s = await openSupervisor({ root: ws.root, config: await loadConfig(ws.root), rand: () => 0.5, onEvent: (e) => events.push(e) });
  opened.push({ s, ws });
  return s;
};

type Ev<T extends JournalEvent['type']> = Extract<JournalEvent, { type: T }>;
const all = async <T extends JournalEvent['type']>(root: string, type: T): Promise<Ev<T>[]> => (await readJournal(root)).events.filter((e): e is Ev<T> => e.type === type);

describe('claude-code adapter, real CLI', () => {
  it('a real Write with the marker ends ✅, with session, cost and tokens journalled', async () => {
    const ws = await claudeWorkspace((root) => [writeReply(root, 'ch01', 'research'), finished]);
    const events: SupervisorEvent[] = [];
    const s = await start(ws, events);
    const r = await s.launch('ch01', 'research');
    expect(r.outcome).toBe('done');
    expect(readFileSync(join(ws.root, 'research/ch01-research.md'), 'utf8').trimEnd().split('\n').pop()).toBe('<!-- RESEARCH_COMPLETE -->');
    const facts = (await all(ws.root, 'agent_facts')).at(-1)!;
    expect(facts.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(facts.costUsd).toBeGreaterThan(0);
    expect(facts.tokensIn).toBe(2400);
    expect(facts.tokensOut).toBe(600);
    expect(facts.cutMidTool).toBe(false);
    // The pane shows the conversation, not JSON; "doing now" is the tool call.
    const lines = events.filter((e) => e.type === 'output').map((e) => (e as { line: string }).line);
    expect(lines).toContain('-> Write research/ch01-research.md');
    expect(lines.some((l) => l.startsWith('{'))).toBe(false);
    expect(lines.some((l) => /^\[result: completed · \$0\.0216 · 2400 in \/ 600 out tokens\]$/.test(l))).toBe(true);
    const costs = s.snapshot().ledger.costs;
    expect(costs.cells['ch01/research']!.costUsd).toBeCloseTo(0.0216, 6);
    expect(costs.session.tokensIn + costs.session.tokensOut).toBe(3000);
  });
});

describe('claude-code money: totals and the budget', () => {
  it('limits.max_cost_usd pauses autopilot with one alarm; spend survives a restart and reaches status --json', async () => {
    // Every attempt costs $0.0216 on the scripted model: the first one uses the whole budget.
    const responder = bookResponder();
    const ws = await claudeWorkspace(() => Array.from({ length: 40 }, () => responder), { units: ['ch01', 'ch02', 'ch03'], limits: ['max_cost_usd: { session: 0.02, workspace: 0.02 }'] });
    const events: SupervisorEvent[] = [];
    const s = await start(ws, events);
    const done = idle(s);
    await s.setAutopilot(true);
    expect(await done).toMatch(/cost budget of this session used \(\$0\.02 of \$0\.02, limits\.max_cost_usd\)/);
    const exits = await all(ws.root, 'exit');
    expect(exits.map((e) => e.class)).toEqual(['SUCCESS']);
    const alarms = events.filter((e) => e.type === 'autopilot' && e.paused);
    expect(alarms).toHaveLength(1);
    const snap = s.snapshot();
    expect(snap.autopilot.paused).toBe(true);
    expect(snap.ledger.costs.session.costUsd).toBeCloseTo(0.0216, 6);
    await s.close();
    opened.splice(0);

    // A new checkroom session: its own spend starts at 0, the workspace's does not.
    const again = await start(ws);
    const l = again.snapshot().ledger;
    expect(l.costs.session.costUsd).toBe(0);
    expect(l.costs.workspace.costUsd).toBeCloseTo(0.0216, 6);
    expect(l.pausedReason).toMatch(/cost budget of this workspace used/);
    const json = statusJson(await loadWorkspace(ws.root), await readSpend(ws.root, Date.now()));
    expect(json.cost_usd).toBeCloseTo(0.0216, 6);
    expect(json.tokens).toEqual({ input: 2400, output: 600, total: 3000 });
    expect(json.cells.filter((c) => (c.cost_usd ?? 0) > 0).map((c) => `${c.unit}/${c.step}`)).toEqual(['ch01/research']);
    expect(json.cells.find((c) => c.unit === 'ch01' && c.step === 'research')!.tokens).toEqual({ input: 2400, output: 600, total: 3000 });
    expect(json.spend.agents.researcher?.attempts).toBe(1);
  });
});
