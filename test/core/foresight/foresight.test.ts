import { describe, expect, it } from 'vitest';
import { appendJournal, readJournal, type NewJournalEvent } from '../../../src/run/journal/journal.js';
import { replayJournal } from '../../../src/run/journal/ledger-fold.js';
import type { Ledger, LedgerConfig } from '../../../src/run/journal/ledger.js';
import { DEFAULT_LIMITS } from '../../../src/pipeline/defaults.js';
import type { Limits } from '../../../src/pipeline/config/types.js';
import type { Cell, PipelineDef, StepDef, WorkspaceState } from '../../../src/types.js';
import { breakersOf } from '../../../src/operator/breakers.js';
import { foresightFrom } from '../../../src/operator/foresight.js';
import { buildOperatorModel } from '../../../src/operator/model.js';
import { runsOf } from '../../../src/operator/runs.js';
import { observedRuns, observedWaiting } from '../../../src/run/journal/observed-runs.js';
import { attemptDuration } from '../../../src/foresight/samples.js';
import { perHour, sparkline, HOUR_MS } from '../../../src/foresight/throughput.js';
import { etaLine, forecastLine } from '../../../src/foresight/words.js';
import type { SupervisorSnapshot } from '../../../src/run/supervisor/types.js';
import { tempDir } from '../../helpers/workspace.js';
import { statOf } from '../../../src/foresight/stats.js';
import { planOrder, type PlanCell } from '../../../src/foresight/schedule.js';
import { perStepSpend } from '../../../src/foresight/forecast.js';
import { foresightOf } from '../../../src/foresight/foresight.js';
import type { Foresight } from '../../../src/foresight/types.js';
import { emptyDurations } from '../../../src/foresight/samples.js';
import { foresightJson } from '../../../src/cli/json-foresight.js';
import { runRecordsOf } from '../../../src/history/run-records.js';
import { attemptDuration as journalDuration } from '../../../src/run/journal/run-duration.js';

// Foresight on real journals (docs/foresight.md): events appended to a journal in a temp
// directory, read back and folded as a restart folds them, then the remaining plan of a small
// two-step pipeline (draft by `writer`, one at a time; review by `reviewer`, two at a time)
// scheduled from the durations, the concurrency limits and the breakers' deadlines.

const T = Date.UTC(2026, 11, 1, 12, 0, 0);
const S = 1000;
const cfg: LedgerConfig = { breaker: { threshold: 2, cooldownMs: 600 * S, maxCooldownMs: 3600 * S }, limits: { ...DEFAULT_LIMITS } };
const CONCURRENCY = { writer: 1, reviewer: 2 };

const step = (id: string, agent: string, dependsOn: string[]): StepDef => ({ id, label: id, aliases: [], path: `${id}/{unit}.md`, marker: 'X', dependsOn, phase: 3, kind: 'artifact', agent }) as unknown as StepDef;
const pipeline: PipelineDef = {
  name: 'two-step',
  phases: [{ id: 3, name: 'write', aliases: [], artifacts: [], barrier: false }],
  steps: [step('draft', 'writer', []), step('review', 'reviewer', ['draft'])],
  units: { pattern: 'ch\\d+' },
  batches: [
    { id: 1, units: ['ch01', 'ch02'] },
    { id: 2, units: ['ch03', 'ch04'] },
  ],
  source: 'test',
} as PipelineDef;
const UNITS = ['ch01', 'ch02', 'ch03', 'ch04'];

/** ch01 done; the rest not started, or as `over` says. */
function wsOf(over: Record<string, Cell['status']> = {}): WorkspaceState {
  const cells = UNITS.flatMap((u, i) =>
    ['draft', 'review'].map((s) => ({ unit: u, step: s, batch: i < 2 ? 1 : 2, status: over[`${u}/${s}`] ?? (u === 'ch01' ? 'done' : 'not_started'), blockedBy: [] }) as unknown as Cell),
  );
  return { root: '/x', name: 'x', pipeline, units: UNITS, cells, phases: [], batches: [], currentPhase: 3, currentBatch: 1, partials: [], suspects: [], discrepancies: [], next: [], warnings: [], checkpoint: { exists: false, lang: 'en', lastUpdate: null }, scannedAt: T } as unknown as WorkspaceState;
}

let runSeq = 0;
/** A launch and its exit (and, with `usd`, its agent_facts). */
function run(unit: string, stepId: string, agent: string, endAt: number, ms: number, cls = 'SUCCESS', usd?: number): NewJournalEvent[] {
  const runId = `run-${++runSeq}`;
  const out: NewJournalEvent[] = [
    { type: 'launch', at: endAt - ms, runId, unit, step: stepId, agent, attempt: 1, argv: ['x'], cwd: '/x', logPath: '/x/l', pid: null, procStart: null, outputPath: null },
    { type: 'exit', at: endAt, runId, unit, step: stepId, agent, exitCode: cls === 'SUCCESS' ? 0 : 1, signal: null, class: cls as 'SUCCESS', markerFound: cls === 'SUCCESS', cmdFp: 'c', errFp: cls === 'SUCCESS' ? '' : 'e', keywords: [], errorTail: [], durationMs: ms },
  ];
  if (usd !== undefined) out.push({ type: 'agent_facts', at: endAt, runId, unit, step: stepId, agent, sessionId: null, costUsd: usd, tokensIn: 10, tokensOut: 10, cacheRead: 0, cacheWrite: 0, apiRetries: 0, cutMidTool: false });
  return out;
}

/** Three drafts of 60 s and `reviews` reviews of 30 s, done in the hours before T (ch01's and earlier units'). */
const history = (reviews = 3, usd?: number): NewJournalEvent[] => [
  ...[1, 2, 3].flatMap((i) => run('ch00', 'draft', 'writer', T - i * 600 * S, 60 * S, 'SUCCESS', usd)),
  ...Array.from({ length: reviews }, (_, i) => run('ch00', 'review', 'reviewer', T - (i + 1) * 500 * S, 30 * S, 'SUCCESS', usd)).flat(),
];

async function ledgerOf(events: NewJournalEvent[], limits: Partial<Limits> = {}): Promise<{ root: string; ledger: Ledger; c: LedgerConfig }> {
  const root = tempDir('checkroom-foresight-');
  for (const e of events) await appendJournal(root, e);
  const j = await readJournal(root);
  expect(j.warnings).toEqual([]);
  const c = { ...cfg, limits: { ...cfg.limits, ...limits } };
  return { root, ledger: replayJournal(j.events, T, c), c };
}

function foresight(ws: WorkspaceState, ledger: Ledger, limits: Limits = DEFAULT_LIMITS, at = T) {
  const runs = runsOf({ ledger, runs: observedRuns(ledger, new Set()), waiting: observedWaiting(ledger, new Set()) });
  return foresightFrom(ws, ledger, runs, breakersOf({ ledger }, runs, { concurrency: CONCURRENCY }, at), limits, at);
}

describe('durations from the journal', () => {
  it('median, p90 and count per step and agent, from successful attempts only; a failure\'s time is not a step\'s', async () => {
    const { ledger } = await ledgerOf([
      ...run('ch00', 'draft', 'writer', T - 9000 * S, 60 * S),
      ...run('ch00', 'draft', 'writer', T - 8000 * S, 120 * S),
      ...run('ch00', 'draft', 'writer', T - 7000 * S, 180 * S),
      ...run('ch00', 'draft', 'writer', T - 6000 * S, 999 * S, 'UNKNOWN'),
    ]);
    const f = foresight(wsOf(), ledger);
    expect(f.forecast.durations.steps).toEqual([{ name: 'draft', count: 3, medianMs: 120 * S, p90Ms: 180 * S }]);
    expect(f.forecast.durations.agents).toEqual([{ name: 'writer', count: 3, medianMs: 120 * S, p90Ms: 180 * S }]);
  });

  it('an attempt\'s duration is its exit\'s durationMs; a cluster job\'s queue wait is apart from its run time', () => {
    const [, exit] = run('ch01', 'draft', 'writer', T, 42 * S);
    expect(attemptDuration(exit as Parameters<typeof attemptDuration>[0])).toEqual({ runMs: 42 * S, queueWaitMs: null });
    // A Slurm job queued 30 s of its 42: it ran 12 (docs/scale-out.md, Queue time).
    expect(attemptDuration({ ...(exit as Parameters<typeof attemptDuration>[0]), queueWaitMs: 30 * S })).toEqual({ runMs: 12 * S, queueWaitMs: 30 * S });
  });

  it('foresight\'s durations use run time only, and status --json carries the queue wait per agent', async () => {
    const queued = (unit: string, endAt: number, wait: number): NewJournalEvent[] => run(unit, 'draft', 'writer', endAt, 60 * S).map((e) => (e.type === 'exit' ? { ...e, durationMs: 60 * S + wait, queueWaitMs: wait } : e));
    const { ledger } = await ledgerOf([...queued('ch00', T - 3000 * S, 600 * S), ...queued('ch01', T - 2000 * S, 300 * S), ...queued('ch02', T - 1000 * S, 0)]);
    expect(ledger.durations.steps.draft).toEqual([60 * S, 60 * S, 60 * S]);
    expect(ledger.durations.queue?.writer).toEqual([600 * S, 300 * S, 0]);
    const f = foresightOf({ ws: wsOf(), durations: ledger.durations, runs: [], human: new Set(), agents: new Map(), cost: null, at: T });
    expect(foresightJson(f).forecast?.durations.queue_wait).toEqual([{ agent: 'writer', count: 3, median_ms: 300 * S, p90_ms: 600 * S }]);
    expect(foresightJson(f).forecast?.durations.steps).toEqual([{ step: 'draft', count: 3, median_ms: 60 * S, p90_ms: 60 * S }]);
  });

  it('History\'s duration of every run and the samples foresight uses agree on a real journal (one derivation)', async () => {
    // A clock stepped back during one run journals a negative durationMs: History and the ETA must read it alike.
    const events = [...history(), ...run('ch00', 'draft', 'writer', T - 100 * S, -5 * S), ...run('ch00', 'review', 'reviewer', T - 50 * S, 45 * S, 'UNKNOWN')];
    const { root, ledger } = await ledgerOf(events);
    const records = runRecordsOf((await readJournal(root)).events);
    expect(records).toHaveLength(8);
    const exits = new Map(events.flatMap((e) => (e.type === 'exit' ? [[e.runId, e] as const] : [])));
    for (const r of records) expect(r.durationMs).toBe(journalDuration(exits.get(r.runId)!).runMs);
    const ok = (stepId: string) => records.filter((r) => r.step === stepId && r.class === 'SUCCESS').map((r) => r.durationMs);
    expect(ledger.durations.steps.draft).toEqual(ok('draft'));
    expect(ledger.durations.steps.review).toEqual(ok('review'));
    expect(ok('draft')).toContain(0);
    expect(attemptDuration).toBe(journalDuration);
  });
});

describe('ETA from the remaining plan', () => {
  it('list-schedules the remaining cells: one writer at a time, reviews after their drafts', async () => {
    const { ledger } = await ledgerOf(history());
    const f = foresight(wsOf(), ledger);
    // ch02 draft 0–60 s, review 60–90; ch03 draft 60–120, review 120–150; ch04 draft 120–180, review 180–210.
    expect(f.batch).toMatchObject({ id: 1, remaining: 2, at: T + 90 * S, unknown: null });
    expect(f.pipeline).toMatchObject({ remaining: 6, at: T + 210 * S, unknown: null });
    expect(etaLine(f)).toBe('ETA batch 1 in 2m · phase 3 in 4m · all in 4m');
  });

  it('thin data: a step with fewer than 3 samples gives no ETA and says how many more it needs', async () => {
    const { ledger } = await ledgerOf(history(1));
    const f = foresight(wsOf(), ledger);
    expect(f.pipeline.at).toBeNull();
    expect(f.pipeline.thin).toEqual([{ step: 'review', samples: 1, more: 2 }]);
    expect(etaLine(f)).toBe('ETA after 2 more review steps');
  });

  it('moves as steps finish: one more review exit appended to the journal turns "after 1 more" into a time', async () => {
    const { root, c } = await ledgerOf(history(2));
    const before = foresight(wsOf(), replayJournal((await readJournal(root)).events, T, c));
    expect(etaLine(before)).toBe('ETA after 1 more review step');
    for (const e of run('ch00', 'review', 'reviewer', T - 10 * S, 30 * S)) await appendJournal(root, e);
    const after = foresight(wsOf(), replayJournal((await readJournal(root)).events, T, c));
    expect(after.pipeline.at).toBe(T + 210 * S);
  });

  it('an open breaker holds its agent\'s cells until its deadline', async () => {
    // Two failures of the writer trip its breaker (threshold 2) for the 600 s cooldown.
    const { ledger } = await ledgerOf([...history(), ...run('ch02', 'draft', 'writer', T - 20 * S, 5 * S, 'UNKNOWN'), ...run('ch02', 'draft', 'writer', T - 10 * S, 5 * S, 'UNKNOWN')]);
    const runs = runsOf({ ledger, runs: [], waiting: [] });
    const deadline = breakersOf({ ledger }, runs, { concurrency: CONCURRENCY }, T).find((b) => b.agent === 'writer')!.deadline!;
    expect(deadline).toBe(T - 10 * S + 600 * S);
    const f = foresight(wsOf(), ledger);
    expect(f.pipeline.at).toBe(deadline + 210 * S);
    expect(f.batch!.at).toBe(deadline + 90 * S);
  });

  it('a cell that needs a human has no ETA, nor what depends on it; other parts keep theirs', async () => {
    const { ledger } = await ledgerOf([...history(), { type: 'escalate', at: T - 5 * S, unit: 'ch03', step: 'draft', class: 'PERMISSION', reason: 'needs a key' }]);
    const f = foresight(wsOf(), ledger);
    expect(f.needsYou).toBe(1);
    expect(f.batch!.at).toBe(T + 90 * S);
    expect(f.pipeline).toMatchObject({ at: null, unknown: 'after 1 cell that needs you' });
  });
});

describe('quota waits delay the ETA (docs/quota.md)', () => {
  const ACCOUNT = 'claude-code:3f9a2c41d0be';
  const RESET = T + 2 * 3600 * S;
  /** `agent` hit its account's quota on ch00's research: the journal says the account waits until RESET. */
  const hit = (agent: string): NewJournalEvent[] => {
    const [launch, exit] = run('ch00', 'research', agent, T - 30 * S, 10 * S, 'RATE_LIMITED');
    return [launch, { ...(exit as Extract<NewJournalEvent, { type: 'exit' }>), quota: { account: ACCOUNT, label: 'claude-code key 3f9a2c (ANTHROPIC_API_KEY)', until: RESET, source: 'usage-limit' } }];
  };
  const snapOf = (l: Ledger) => ({ role: 'readonly', holder: null, readonlyReason: null, ledger: l, runs: [], waiting: [], autopilot: { on: false, paused: false, reason: '' }, launchesThisSession: 0, warnings: [], notices: [] }) as unknown as SupervisorSnapshot;

  it('a wait 2 h ahead on the writer\'s account: no cell of the writer starts before the reset, so the ETA is at least it', async () => {
    const { ledger } = await ledgerOf([...history(), ...hit('writer')]);
    const m = buildOperatorModel(wsOf(), { snap: snapOf(ledger), limits: DEFAULT_LIMITS, concurrency: CONCURRENCY }, T);
    expect(m.quota).toMatchObject([{ account: ACCOUNT, deadline: RESET, agents: ['writer'], cells: 1, waiting: [{ unit: 'ch00', step: 'research' }] }]);
    expect(m.foresight.quota).toEqual(m.quota);
    // Drafts from the reset on, one at a time (60 s each), reviews after them: as an open breaker's deadline.
    expect(m.foresight.batch!.at).toBe(RESET + 90 * S);
    expect(m.foresight.pipeline.at).toBe(RESET + 210 * S);
  });

  it('an agent the configuration puts on the same account waits too, though the journal never saw it hit the limit', async () => {
    const { ledger } = await ledgerOf([...history(), ...hit('researcher')]);
    const sup = { snap: snapOf(ledger), limits: DEFAULT_LIMITS, concurrency: CONCURRENCY };
    // Without the accounts the writer is not known to share the key: the plan runs now.
    expect(buildOperatorModel(wsOf(), sup, T).foresight.pipeline.at).toBe(T + 210 * S);
    const m = buildOperatorModel(wsOf(), { ...sup, accounts: { researcher: ACCOUNT, writer: ACCOUNT, reviewer: 'claude-code:other' } }, T);
    expect(m.quota[0].agents).toEqual(['researcher', 'writer']);
    expect(m.foresight.pipeline.at).toBe(RESET + 210 * S);
  });

  it('a reset already past delays nothing', async () => {
    const { ledger } = await ledgerOf([...history(), ...hit('writer')]);
    const m = buildOperatorModel(wsOf(), { snap: snapOf(ledger), limits: DEFAULT_LIMITS, concurrency: CONCURRENCY }, RESET + 60 * S);
    expect(m.quota).toEqual([]);
    expect(m.foresight.pipeline.at).toBe(RESET + 60 * S + 210 * S);
  });
});

describe('cost to completion against the budgets', () => {
  it('at $1 an attempt, a $8 workspace budget with $6 spent runs out at the third cell to launch', async () => {
    const budget = { costUsd: { session: null, workspace: 8 }, tokens: { session: null, workspace: null } };
    const { ledger } = await ledgerOf(history(3, 1), { budget });
    const f = foresight(wsOf(), ledger, { ...DEFAULT_LIMITS, budget });
    expect(f.forecast.costToCompleteUsd).toBeCloseTo(6);
    // Launch order: ch02 draft (0 s), ch02 review (60 s), ch03 draft (60 s, after it in plan order).
    expect(f.forecast.runsOut).toEqual({ key: 'limits.max_cost_usd.workspace', what: 'workspace budget', unit: 'ch03', step: 'draft' });
    expect(forecastLine(f)).toBe('to finish ~$6.00 · at this rate the workspace budget runs out at ch03 draft');
  });

  it('no spend journalled: no cost, and a launch budget still runs out where it would', async () => {
    const { ledger } = await ledgerOf(history());
    const limits = { ...DEFAULT_LIMITS, maxLaunches: ledger.launchesThisSession + 4 };
    const f = foresight(wsOf(), ledger, limits);
    expect(f.forecast.costToCompleteUsd).toBeNull();
    expect(f.forecast.runsOut).toMatchObject({ key: 'limits.max_launches', unit: 'ch04', step: 'draft' });
  });
});

describe('throughput', () => {
  it('cells done per hour over the last 12 hours, the newest last, as a sparkline with an ASCII ramp', async () => {
    const { ledger } = await ledgerOf(history());
    const f = foresight(wsOf(), ledger);
    // Six successes within the last hour (600–1800 s and 500–1500 s before T).
    expect(f.forecast.perHour).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 6]);
    expect(perHour([T - 2 * HOUR_MS + 1, T - 30 * S, T + 5 * S], T, 3)).toEqual([0, 1, 1]);
    expect(sparkline([0, 1, 2, 4], false)).toBe('▁▃▅█');
    const ascii = sparkline([0, 1, 2, 4], true);
    expect(ascii).toBe('_-=#');
    expect([...ascii].every((ch) => ch.charCodeAt(0) < 0x80)).toBe(true);
  });
});

describe('the operator model carries it', () => {
  it('buildOperatorModel gives the same foresight as a scan of the same journal, and a new exit in the snapshot moves it', async () => {
    const { root, ledger, c } = await ledgerOf(history(2));
    const snap = (l: Ledger) => ({ role: 'readonly', holder: null, readonlyReason: null, ledger: l, runs: [], waiting: [], autopilot: { on: false, paused: false, reason: '' }, launchesThisSession: 0, limits: { maxLaunches: 200, consecutiveFailures: 0, breakerThreshold: 2, maxConsecutiveFailures: 8 }, warnings: [], notices: [] }) as unknown as SupervisorSnapshot;
    const m1 = buildOperatorModel(wsOf(), { snap: snap(ledger), limits: DEFAULT_LIMITS, concurrency: CONCURRENCY }, T);
    expect(m1.foresight).toEqual(foresight(wsOf(), ledger));
    expect(etaLine(m1.foresight)).toBe('ETA after 1 more review step');
    for (const e of run('ch00', 'review', 'reviewer', T - 10 * S, 30 * S)) await appendJournal(root, e);
    const l2 = replayJournal((await readJournal(root)).events, T, c);
    const m2 = buildOperatorModel(wsOf(), { snap: snap(l2), limits: DEFAULT_LIMITS, concurrency: CONCURRENCY }, T + S);
    // The forecast's clock is the model's to the minute: T + 1 s schedules from T.
    expect(m2.foresight.at).toBe(T);
    expect(m2.foresight.pipeline.at).toBe(T + 210 * S);
  });
});

describe('the parts, one by one', () => {
  it('statOf: nearest-rank median and p90 of unsorted samples', () => {
    expect(statOf('draft', [50, 10, 40, 20, 30])).toEqual({ name: 'draft', count: 5, medianMs: 30, p90Ms: 50 });
    expect(statOf('none', [])).toEqual({ name: 'none', count: 0, medianMs: 0, p90Ms: 0 });
  });

  it('planOrder: batch (unbatched last), then phase, unit and the pipeline\'s step order', () => {
    const c = (unit: string, stepId: string, batch: number | null): PlanCell => ({ key: `${unit}/${stepId}`, unit, step: stepId, batch, phase: 3, agent: null, human: false, startedAt: null, readyAt: null });
    const order = planOrder([c('ch03', 'draft', null), c('ch02', 'review', 1), c('ch02', 'draft', 1), c('ch01', 'review', 2)], pipeline, UNITS).map((x) => x.key);
    expect(order).toEqual(['ch02/draft', 'ch02/review', 'ch01/review', 'ch03/draft']);
  });

  it('perStepSpend: each step\'s spend over its cells', async () => {
    const { ledger } = await ledgerOf(history(3, 2));
    expect(perStepSpend(ledger.costs).get('draft')).toMatchObject({ costUsd: 6, attempts: 3 });
  });

  it('foresightOf with nothing known, and its JSON; a document without a forecast says null', () => {
    const f: Foresight = foresightOf({ ws: wsOf(), durations: emptyDurations(), runs: [], human: new Set(), agents: new Map(), cost: null, at: T });
    expect(f.pipeline).toMatchObject({ remaining: 6, at: null, unknown: 'after 3 more draft steps' });
    const j = foresightJson(f);
    expect(j.eta).toMatchObject({ at: new Date(T).toISOString(), needs_you: 0, text: 'ETA after 3 more draft steps' });
    expect(j.forecast).toMatchObject({ cost_to_complete_usd: null, runs_out: null, text: null, hour_ms: HOUR_MS, durations: { queue_wait: [] } });
    expect(foresightJson(null)).toEqual({ eta: null, forecast: null, quota: null });
  });
});
