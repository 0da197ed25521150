import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../../src/pipeline/config/config.js';
import type { WorkspaceConfig } from '../../../src/pipeline/config/types.js';
import { replayJournal } from '../../../src/run/journal/ledger-fold.js';
import { newCell, type AgentLedger, type Ledger } from '../../../src/run/journal/ledger.js';
import { breakerInit } from '../../../src/run/policy/breaker.js';
import { commandShownEvent } from '../../../src/consent.js';
import type { SupervisorSnapshot } from '../../../src/run/supervisor/supervisor.js';
import type { ResumeSpec } from '../../../src/run/adapters/index.js';
import { failureWords } from '../../../src/operator/words.js';
import { initialAgents } from '../../../src/ui/agents/types.js';
import type { AppState } from '../../../src/ui/store/types.js';
import type { Ask } from '../../../src/ui/store/kit.js';
import type { NextStep } from '../../../src/types.js';
import {
  launchAsk,
  planAutopilot,
  planBreaker,
  planCancel,
  planContinue,
  planLaunchSelected,
  planNext,
  planQuit,
  planResetCell,
  type AgentsRead,
} from '../../../src/ui/agents/planners.js';
import { closeStores, openStore } from '../../helpers/store.js';
import { PHASE_1_2, summaries, tempDir, writeFiles } from '../../helpers/workspace.js';

// The agents slice's pure planners (issue 9 item 3) on plain values: a config read once, a
// ledger replayed from plain journal events, a snapshot and a supervisor read port that
// answer from those values. Nothing is launched and nothing is written.

let config: WorkspaceConfig;
let base: AppState;
beforeAll(async () => {
  const root = tempDir('checkroom-agents-planners-');
  writeFiles(root, { ...PHASE_1_2, 'meta/chapter-summaries.md': summaries([]) });
  const agent = '    command: [node, agent.mjs, "{unit}"]';
  writeFileSync(
    join(root, 'checkroom.yaml'),
    ['preset: book', 'units: { list: [ch01] }', 'batches: [{ id: 1, units: [ch01] }]', 'agents:', '  researcher:', agent, '  writer:', agent, ''].join('\n'),
  );
  config = await loadConfig(root);
  base = (await openStore(root)).s();
});
afterAll(closeStores);

const CFG = () => ({ breaker: config.breaker, limits: config.limits });
const ledgerOf = (shown: boolean): Ledger => replayJournal(shown ? [{ v: 1, ...commandShownEvent(config, 'ch01', 'research', 1) } as never] : [], 1, CFG());

function readOf(
  o: {
    shown?: boolean;
    ledger?: Ledger;
    runs?: SupervisorSnapshot['runs'];
    autopilot?: boolean;
    continuable?: () => ResumeSpec | null;
    resources?: string;
  } = {},
): AgentsRead {
  const ledger = o.ledger ?? ledgerOf(o.shown ?? false);
  const snap = { role: 'driver', holder: null, ledger, runs: o.runs ?? [], waiting: [], autopilot: { on: !!o.autopilot } } as unknown as SupervisorSnapshot;
  return {
    config,
    sup: {
      snapshot: () => snap,
      describeCommand: (unit, step, c) =>
        ({ agent: 'researcher', cwd: '/w', text: `node agent.mjs ${unit} ${step}${c?.continue ? ' --resume' : ''}`, resources: o.resources ?? '' }) as never,
      continuable: o.continuable ?? (() => null),
    },
  };
}

const next = (n: Partial<NextStep>): NextStep => ({ unit: 'ch01', step: 'research', action: 'run', reason: 'ready', priority: 1, ...n }) as NextStep;
const planState = (agents: AppState['agents'] = initialAgents(), patch: Partial<AppState> = {}): AppState => ({
  ...base,
  view: 'plan',
  agents,
  picked: { ...base.picked, plan: null, health: null },
  cursors: { ...base.cursors, plan: 0, health: 0 },
  ...patch,
});
const run = {
  unit: 'ch01',
  step: 'research',
  agent: 'researcher',
  runId: 'r1',
  pid: 42,
  attempt: 1,
  startedAt: 0,
  logPath: '/l',
} as unknown as SupervisorSnapshot['runs'][number];

describe('launching', () => {
  it('a plan step goes to a launch; what no agent runs, or is decided elsewhere, is said', () => {
    const r = readOf();
    expect(planNext(r, next({}))).toEqual({ go: { unit: 'ch01', step: 'research' } });
    expect(planNext(r, next({ unit: null, step: null, action: 'wait', reason: 'batch 1 first' } as never))).toEqual({
      say: 'wait: not a step an agent runs (batch 1 first)',
      tone: 'warn',
    });
    expect(planNext(r, next({ step: 'r1' }))).toEqual({ say: 'ch01 r1: no agent configured for step r1 in checkroom.yaml', tone: 'warn' });
    expect(planNext(r, next({ action: 'decide' }))).toMatchObject({
      say: 'ch01 research may be complete: decide in the Partials view (2) — m keeps it, d redoes it',
    });
    expect(planNext(r, next({ action: 'backup_redo' }))).toMatchObject({
      go: { why: ['The half-product of ch01 research is moved aside first (file.bak.<time>), then the agent starts over.'] },
    });
  });

  it('an escalated cell is reset and relaunched, with what it forgets', () => {
    const ledger = ledgerOf(true);
    ledger.cells['ch01/research'] = { ...newCell('ch01', 'research'), reason: 'three timeouts' };
    const go = planNext(readOf({ ledger }), next({ action: 'human_review' }));
    expect(go).toEqual({
      go: {
        unit: 'ch01',
        step: 'research',
        reset: true,
        why: ['ch01 research was escalated: three timeouts', 'Its attempts (0) and counters are forgotten (the journal keeps them), then it is launched anew.'],
      },
    });
  });

  it('a launch by hand past a spent budget asks first and says which budget; within it, it launches at once', () => {
    const budget = { costUsd: { session: 0.5, workspace: null }, tokens: { session: null, workspace: null } };
    const spentConfig = { ...config, limits: { ...config.limits, budget } };
    const paid = (cost: number): Ledger =>
      replayJournal(
        [
          { v: 1, ...commandShownEvent(config, 'ch01', 'research', 1) } as never,
          { v: 1, type: 'session', at: 0, pid: 1, host: 'h' } as never,
          { v: 1, type: 'agent_facts', at: 1, runId: 'r0', unit: 'ch01', step: 'research', agent: 'researcher', costUsd: cost, tokensIn: 10, tokensOut: 10, sessionId: null, cutMidTool: false } as never,
        ],
        2,
        { ...CFG(), limits: spentConfig.limits },
      );
    const over = launchAsk({ ...readOf({ ledger: paid(0.5) }), config: spentConfig }, { unit: 'ch01', step: 'research' })!;
    expect(over.title).toBe('Launch ch01 research (budget spent)');
    expect(over.lines[0]).toBe('Budget: cost budget of this session used ($0.50 of $0.50, limits.max_cost_usd). This launch spends past it: Enter launches anyway, Esc keeps to the budget.');
    // Issue 17 item 4: Enter is the operator's word to go past it, which the supervisor now requires.
    expect(over.pending).toEqual({ type: 'agents', action: { kind: 'launch', unit: 'ch01', step: 'research', reset: false, consent: false, redo: false, overBudget: true } });
    expect(launchAsk({ ...readOf({ ledger: paid(0.1) }), config: spentConfig }, { unit: 'ch01', step: 'research' })).toBeNull();
  });

  it('the first launch shows the exact command; afterwards a plain run launches at once', () => {
    const first = launchAsk(readOf(), { unit: 'ch01', step: 'research' })!;
    expect(first.title).toBe('Launch ch01 research: the exact command');
    expect(first.lines[1]).toBe('  node agent.mjs ch01 research');
    expect(first.pending).toEqual({ type: 'agents', action: { kind: 'launch', unit: 'ch01', step: 'research', reset: false, consent: true, redo: false, overBudget: false } });
    expect(launchAsk(readOf({ shown: true }), { unit: 'ch01', step: 'research' })).toBeNull();
    const reset = launchAsk(readOf({ shown: true }), { unit: 'ch01', step: 'research', reset: true, why: ['why'] })!;
    expect(reset.title).toBe('Reset ch01 research and relaunch it');
    expect(reset.lines).toEqual(['why', 'checkroom will run: node agent.mjs ch01 research']);
  });

  it('the launch preview says what the attempt is given: memory at its ladder step (issue 22 item 5)', () => {
    const words = 'memory 8G (memory_ladder step 2 of 3), 2 cpus (slurm)';
    const first = launchAsk(readOf({ resources: words }), { unit: 'ch01', step: 'research' })!;
    expect(first.lines[2]).toBe(`  with ${words}`);
    const reset = launchAsk(readOf({ shown: true, resources: words }), { unit: 'ch01', step: 'research', reset: true, why: ['why'] })!;
    expect(reset.lines).toEqual(['why', 'checkroom will run: node agent.mjs ch01 research', `with ${words}`]);
  });

  it('enter on a run in flight opens its log instead of launching', () => {
    const agents = { ...initialAgents(), snap: readOf({ runs: [run] }).sup.snapshot() };
    const d = planLaunchSelected(readOf({ runs: [run] }), planState(agents));
    expect(d).toMatchObject({ change: { agents: { logOpen: true }, message: { tone: 'info' } } });
    expect((d as { change: AppState }).change.message?.text).toMatch(/^ch01 research is in flight \(.*\); x cancels it$/);
  });
});

describe('autopilot, cancel, quit', () => {
  it('autopilot turns off, turns on once the command was shown, or shows it first', () => {
    expect(planAutopilot(readOf({ autopilot: true }), planState())).toEqual({ go: 'off' });
    expect(planAutopilot(readOf({ shown: true }), planState())).toEqual({ go: 'on' });
    const queued = planState(initialAgents(), { redoQueue: [{ unit: 'ch01', step: 'research', path: 'p', backup: 'b', queuedAt: 0 }] });
    expect(planAutopilot(readOf(), queued)).toMatchObject({
      ask: {
        title: 'Autopilot: the exact command, before the first launch',
        pending: { action: { kind: 'autopilot', consent: { unit: 'ch01', step: 'research' } } },
      },
    });
  });

  it('x cancels the only run, or says there is none', () => {
    expect(planCancel(planState())).toEqual({ say: 'nothing is running', tone: 'warn' });
    const agents = { ...initialAgents(), snap: readOf({ runs: [run] }).sup.snapshot() };
    expect(planCancel(planState(agents))).toMatchObject({
      ask: { title: 'Cancel ch01 research', pending: { action: { kind: 'cancel', key: 'ch01/research' } } },
    });
  });

  it('q with runs in flight asks; asked already, q stays and ctrl-c leaves them', () => {
    expect(planQuit(readOf(), planState(), false)).toBeNull();
    const r = readOf({ runs: [run] });
    const agents = { ...initialAgents(), snap: r.sup.snapshot() };
    const ask = planQuit(r, planState(agents), false) as { ask: Ask };
    expect(ask.ask.title).toBe('Quit with 1 run in flight');
    const open = planState(agents, { dialog: { title: '', lines: [], pending: ask.ask.pending, at: 0 } });
    expect(planQuit(r, open, false)).toEqual({ change: {} });
    expect(planQuit(r, open, true)).toMatchObject({ change: { dialog: null, quit: true, agents: { quitMode: 'leave' } } });
  });

  it('the quit dialog says in words what a cancelled cell becomes: no glyph, drawn under --ascii too', () => {
    const r = readOf({ runs: [run] });
    const ask = planQuit(r, planState({ ...initialAgents(), snap: r.sup.snapshot() }), false) as { ask: Ask };
    expect(ask.ask.lines).toContain('y/enter: cancel them, then quit (each cell goes back to what it was, or to failed)');
    for (const l of ask.ask.lines) expect(l).not.toMatch(/\p{Extended_Pictographic}|\u2014|\ufe0f/u);
  });
});

describe('the Health view', () => {
  const held: AgentLedger = {
    agent: 'researcher',
    breaker: { ...breakerInit(), status: 'held', consecutiveFailures: 2, trips: 1 },
    canLaunch: false,
    view: { state: 'held', remainingMs: 0, consecutiveFailures: 2, threshold: 3, trips: 1, openedBy: [] },
  };
  const health = (ledger: Ledger, cursor = 0) =>
    planState(
      { ...initialAgents(), agentNames: ['researcher'], snap: readOf({ ledger }).sup.snapshot() },
      { view: 'health', cursors: { ...base.cursors, health: cursor } },
    );

  it('B on an agent resets, H holds or releases its breaker', () => {
    const ledger = ledgerOf(true);
    expect(planBreaker(config, health(ledger), 'reset')).toMatchObject({
      ask: { title: 'Reset breaker researcher', pending: { action: { kind: 'breaker', agent: 'researcher', op: 'reset' } } },
    });
    expect(planBreaker(config, health(ledger), 'hold')).toMatchObject({ ask: { title: 'Hold breaker researcher open' } });
    ledger.agents.researcher = held;
    const release = planBreaker(config, health(ledger), 'hold') as { ask: { title: string; lines: string[] } };
    expect(release.ask.title).toBe('Release breaker researcher');
    expect(release.ask.lines[0]).toMatch(/^breaker researcher: .*; 2 consecutive failures \(threshold 3\), 1 trips$/);
  });

  it('0 on a cell resets its counters; on an agent it says what to select', () => {
    const ledger = ledgerOf(true);
    ledger.cells['ch01/research'] = { ...newCell('ch01', 'research'), state: 'needs_human' };
    // Rows by urgency (issue 18): the escalated cell comes before the idle agent.
    expect(planResetCell(health(ledger, 1))).toEqual({ say: 'select a cell (Health lists agents and cells by urgency)', tone: 'warn' });
    expect(planResetCell(health(ledger, 0))).toMatchObject({
      ask: { title: 'Reset the counters of ch01 research', pending: { action: { kind: 'reset_cell', unit: 'ch01', step: 'research' } } },
    });
    expect(planBreaker(config, health(ledger, 0), 'reset')).toEqual({ say: 'select an agent (Health lists agents and cells by urgency)', tone: 'warn' });
  });

  it('says consecutive failures as a count and the threshold, which the count may pass while open', () => {
    expect(failureWords(4, 2)).toBe('4 failures in a row (opens at 2)');
    expect(failureWords(1, 3)).toBe('1 failure in a row (opens at 3)');
  });

  it('the reset dialog says in words what the checkpoint.md cell becomes: no glyph, drawn under --ascii too', () => {
    const ledger = ledgerOf(true);
    ledger.cells['ch01/research'] = { ...newCell('ch01', 'research'), state: 'needs_human' };
    const d = planResetCell(health(ledger, 0)) as { ask: Ask };
    expect(d.ask.lines[0]).toBe('ch01 research: escalated (needs a human), 0 attempts');
    expect(d.ask.lines.at(-1)).toBe('its checkpoint.md cell follows the disk again (done when the marker proves it, in progress on a half-product, not started on nothing).');
    for (const l of d.ask.lines) expect(l).not.toMatch(/\p{Extended_Pictographic}|\u2014|\ufe0f/u);
  });
});

describe('continue (issue 11)', () => {
  const onStep = () => planState(initialAgents(), { ws: { ...base.ws, next: [next({})] } });

  it('previews resuming the session, or says why there is none', () => {
    expect(planContinue(readOf(), onStep())).toEqual({
      say: 'ch01 research: nothing to continue from (no half-product on disk, or an agent that neither resumes a session nor takes {partial} / {backup}); enter or d starts over',
      tone: 'warn',
    });
    const d = planContinue(readOf({ continuable: () => ({ mode: 'resume', sessionId: 's-1', halfProduct: 'research/ch01.md' }) }), onStep());
    expect(d).toMatchObject({
      ask: { title: 'Continue ch01 research: resume its session', pending: { action: { kind: 'continue', unit: 'ch01', step: 'research' } } },
    });
    expect((d as { ask: { lines: string[] } }).ask.lines.slice(0, 2)).toEqual([
      'Session s-1 is resumed (--resume) with a prompt naming the half-product research/ch01.md:',
      '  node agent.mjs ch01 research --resume',
    ]);
  });

  it('a supervisor that cannot answer is a fail message, not a crash', () => {
    const d = planContinue(
      readOf({
        continuable: () => {
          throw new Error('journal unreadable');
        },
      }),
      onStep(),
    );
    expect(d).toEqual({ say: 'journal unreadable', tone: 'fail' });
  });

  it('a picked Plan row that left the list is refused as gone, like every other key (issue 8 item 2)', () => {
    const s = planState(initialAgents(), { ws: { ...base.ws, next: [next({})] }, picked: { ...base.picked, plan: 'cell:ch09/final' } });
    expect(planContinue(readOf(), s)).toMatchObject({ change: { message: { text: 'ch09 final left the list: nothing was done (the cursor is on the row now shown)', tone: 'warn' } } });
  });

  it('with nothing picked it says what to select', () => {
    expect(planContinue(readOf(), planState(initialAgents(), { ws: { ...base.ws, next: [] } }))).toEqual({
      say: 'select a cell with a half-product (Partials) or a step (Plan)',
      tone: 'warn',
    });
  });
});
