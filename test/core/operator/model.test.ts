import { describe, expect, it } from 'vitest';
import { replayJournal } from '../../../src/run/journal/ledger-fold.js';
import type { Ledger } from '../../../src/run/journal/ledger.js';
import type { JournalEvent } from '../../../src/run/journal/journal.js';
import type { SupervisorSnapshot } from '../../../src/run/supervisor/types.js';
import type { Limits } from '../../../src/pipeline/config/types.js';
import type { Cell, NextStep, WorkspaceState } from '../../../src/types.js';
import { buildOperatorModel, cellView, type OperatorSupervisor } from '../../../src/operator/model.js';
import { cellTally } from '../../../src/operator/ws-counts.js';
import { planOf } from '../../../src/operator/plan.js';
import { autopilotWords, breakerWords, slotWords } from '../../../src/operator/words.js';
import { plainSnapshot } from '../../helpers/snapshot.js';

// The operator model on plain values (issue 18 item 1): a ledger replayed from plain journal
// events, a snapshot and a workspace state built by hand, one clock reading. Each case
// reproduces a disagreement the issue reported.

const T0 = 1_000_000;
const CFG = { breaker: { threshold: 2, cooldownMs: 60_000, maxCooldownMs: 600_000 }, limits: { maxLaunches: 100, maxConsecutiveFailures: 10 } };
const LIMITS: Limits = { maxLaunches: 100, maxConsecutiveFailures: 10, caps: { UNKNOWN: 4 }, backoffBaseMs: 1000, backoffMaxMs: 10_000 };

const ev = (e: Record<string, unknown>): JournalEvent => ({ v: 1, ...e }) as unknown as JournalEvent;
const launch = (unit: string, step: string, at: number, attempt = 1) =>
  ev({ type: 'launch', at, runId: `r-${unit}-${step}-${attempt}`, unit, step, agent: 'writer', attempt, argv: [], cwd: '/', logPath: '/l', pid: 1, procStart: null, outputPath: null });
const exit = (unit: string, step: string, at: number, attempt = 1, cls = 'UNKNOWN') =>
  ev({ type: 'exit', at, runId: `r-${unit}-${step}-${attempt}`, unit, step, agent: 'writer', exitCode: 1, signal: null, class: cls, markerFound: false, cmdFp: 'c', errFp: `e${attempt}`, keywords: [], errorTail: ['boom'], durationMs: 1 });
const failure = (at: number) => ev({ type: 'breaker', at, agent: 'writer', event: 'failure', summary: 'boom' });
const ledgerOf = (events: JournalEvent[], now: number): Ledger => replayJournal(events, now, CFG);

const snapOf = plainSnapshot;

const sup = (snap: SupervisorSnapshot | null, concurrency: Record<string, number> = { writer: 2 }): OperatorSupervisor => ({ snap, limits: LIMITS, concurrency });

const cell = (unit: string, step: string, status: Cell['status'], patch: Partial<Cell> = {}): Cell =>
  ({ unit, step, batch: 1, path: `${step}/${unit}.md`, status, disk: 'missing', checkpoint: null, exists: false, bytes: 0, chars: 0, marker: false, mtimeMs: 0, triage: null, blockedBy: [], ...patch }) as Cell;

const wsOf = (patch: Partial<WorkspaceState> = {}): WorkspaceState =>
  ({
    root: '/w',
    name: 'w',
    units: ['ch01'],
    cells: [cell('ch01', 'research', 'done'), cell('ch01', 'draft', 'not_started')],
    phases: [],
    batches: [],
    currentPhase: null,
    currentBatch: null,
    partials: [],
    suspects: [],
    discrepancies: [],
    next: [],
    warnings: [],
    checkpoint: { exists: false, lang: 'en', lastUpdate: null },
    scannedAt: T0,
    ...patch,
  }) as WorkspaceState;

const run = (unit: string, step: string, patch: Partial<SupervisorSnapshot['runs'][number]> = {}): SupervisorSnapshot['runs'][number] => ({
  runId: `r-${unit}-${step}`,
  unit,
  step,
  agent: 'writer',
  attempt: 1,
  pid: 42,
  logPath: '/l',
  startedAt: T0,
  lines: [],
  ...patch,
});

describe('breakers: one deadline, one clock', () => {
  // The ledger was folded at T0 + 20 s (its view says 40 s left); the model's clock reads T0 + 54 s.
  const ledger = ledgerOf([failure(T0), failure(T0)], T0 + 20_000);

  it('every countdown is the deadline minus the model clock, not the fold time remainder', () => {
    expect(ledger.agents.writer.view.remainingMs).toBe(40_000);
    const m = buildOperatorModel(wsOf(), sup(snapOf(ledger)), T0 + 54_000);
    const b = m.breakers.find((x) => x.agent === 'writer')!;
    expect(b.deadline).toBe(T0 + 60_000);
    expect(breakerWords(b, m.at)).toBe('open 6 s left');
  });

  it('past its deadline an open breaker is half-open at the model clock, with no countdown', () => {
    const m = buildOperatorModel(wsOf(), sup(snapOf(ledger)), T0 + 61_000);
    expect(m.breakers[0]).toMatchObject({ state: 'half_open', deadline: null, canLaunch: true });
  });

  it('a cell waiting for a breaker names it: its countdown is the breaker deadline, not the words baked when it began to wait', () => {
    const waiting = [{ unit: 'ch01', step: 'draft', agent: 'writer', retryAt: null, reason: 'waiting for breaker writer (open, 29 s left)' }];
    const m = buildOperatorModel(wsOf(), sup(snapOf(ledger, { waiting })), T0 + 59_000);
    expect(m.runs[0]).toMatchObject({ state: 'waiting', breaker: 'writer' });
    expect(m.cells.get('ch01/draft')!.run).toBe('waiting');
    expect(breakerWords(m.breakers.find((b) => b.agent === m.runs[0].breaker)!, m.at)).toBe('open 1 s left');
  });

  it('slots in use against the agent concurrency limit: writer 1/2', () => {
    const m = buildOperatorModel(wsOf(), sup(snapOf(ledger, { runs: [run('ch01', 'draft')] }), { writer: 2, reviewer: 1 }), T0);
    expect(m.breakers.map(slotWords)).toEqual(['reviewer 0/1', 'writer 1/2']);
  });
});

describe('runs and counts', () => {
  const ledger = ledgerOf([], T0);

  it('a cluster job still queued is pending, never running', () => {
    const runs = [run('ch01', 'draft', { job: { executor: 'slurm', id: '12' }, why: 'waiting: Resources', pid: null }), run('ch01', 'research', { job: { executor: 'slurm', id: '13' }, why: null })];
    const m = buildOperatorModel(wsOf({ cells: [cell('ch01', 'research', 'running'), cell('ch01', 'draft', 'running')] }), sup(snapOf(ledger, { runs })), T0);
    expect(m.counts).toMatchObject({ running: 1, pending: 1 });
    expect(m.runs.find((r) => r.step === 'draft')).toMatchObject({ state: 'pending', job: 'slurm job 12', reason: 'waiting: Resources' });
  });

  it('an observer that sees the driver run twice (its own view and the journal) counts it once', () => {
    const runs = [run('ch01', 'draft'), run('ch01', 'draft', { runId: 'other', origin: 'driver' })];
    const m = buildOperatorModel(wsOf(), sup(snapOf(ledger, { role: 'readonly', runs })), T0);
    expect(m.runs).toHaveLength(1);
    expect(m.counts.running).toBe(1);
  });

  it('a cell waiting for its next attempt is waiting, not running', () => {
    const waiting = [{ unit: 'ch01', step: 'draft', agent: 'writer', retryAt: T0 + 5000, reason: 'backoff' }];
    const m = buildOperatorModel(wsOf({ cells: [cell('ch01', 'draft', 'running')] }), sup(snapOf(ledger, { waiting })), T0);
    expect(m.counts).toMatchObject({ running: 0, waiting: 1, pending: 0 });
  });

  it('warnings are every warning a surface lists, the todo table too (text status said 0 while the todo table had one)', () => {
    const w = { source: 'todos.db', message: 'dangling' };
    const m = buildOperatorModel(wsOf({ todos: { path: 't', ok: true, ready: [], readyContradicted: [], disagreements: [], dangling: [], warnings: [w] } }), null, T0);
    expect(m.counts.warnings).toBe(1);
  });

  it('half-products and suspects are named apart from partial cells (Partials (36) against "2 partial")', () => {
    const p = { path: 'a', unit: 'ch01', step: 'draft', chars: 1, bytes: 1, verdict: 'truncated', reason: 'r' };
    const m = buildOperatorModel(wsOf({ cells: [cell('ch01', 'draft', 'partial')], partials: [p], suspects: [p, p] } as never), null, T0);
    expect(m.counts).toMatchObject({ partial: 1, halfProducts: 1, suspects: 2 });
  });

  it('blocked cells are counted, and a cell view says what blocks it', () => {
    const ws = wsOf({ cells: [cell('ch01', 'research', 'failed'), cell('ch01', 'draft', 'not_started', { blockedBy: ['ch01/research'] })] });
    const m = buildOperatorModel(ws, null, T0);
    expect(m.counts.blocked).toBe(1);
    expect(cellView(ws, m, 'ch01/draft')).toMatchObject({ status: 'not_started', blockedBy: ['ch01/research'], run: null });
  });

  it('counts move by difference on a new cell array and equal a full count', () => {
    const a = [cell('u1', 's', 'done'), cell('u2', 's', 'partial'), cell('u3', 's', 'not_started')];
    expect(cellTally(a)).toMatchObject({ done: 1, partial: 1, notStarted: 1 });
    const b = [a[0], cell('u2', 's', 'done'), a[2]];
    expect(cellTally(b)).toMatchObject({ total: 3, done: 2, partial: 0, notStarted: 1 });
    expect(cellTally([cell('u1', 's', 'failed'), ...b.slice(1)])).toMatchObject({ done: 1, failed: 1, partial: 0, notStarted: 1 });
  });
});

describe('escalations and attempts', () => {
  const events = [launch('ch04', 'memory', T0), exit('ch04', 'memory', T0 + 1), ev({ type: 'escalate', at: T0 + 2, unit: 'ch04', step: 'memory', class: 'CIRCULAR_FIX', reason: 'same command and same error 3 times' })];
  const ledger = ledgerOf(events, T0 + 3);

  it('one escalation, with the class the journal escalated it with', () => {
    const m = buildOperatorModel(wsOf(), sup(snapOf(ledger)), T0 + 3);
    expect(m.escalations).toEqual([{ key: 'ch04/memory', unit: 'ch04', step: 'memory', class: 'CIRCULAR_FIX', reason: 'same command and same error 3 times' }]);
    expect(m.counts.escalated).toBe(1);
  });

  it('an escalated cell has no next attempt (Health said "escalated · next attempt 2 of 4")', () => {
    const m = buildOperatorModel(wsOf(), sup(snapOf(ledger)), T0 + 3);
    expect(m.cells.get('ch04/memory')).toMatchObject({ run: 'escalated', nextAttempt: null });
    // The same attempts without the escalation would be retried: the label is the policy's.
    const open = buildOperatorModel(wsOf(), sup(snapOf(ledgerOf(events.slice(0, 2), T0 + 3))), T0 + 3);
    expect(open.cells.get('ch04/memory')!.nextAttempt).toBe('attempt 2 of 4');
  });
});

describe('autopilot: one state for every surface', () => {
  const ledger = ledgerOf([], T0);

  it('on while a global limit pauses it reads paused, with the reason (the status line said "on: launching", the header PAUSED)', () => {
    const m = buildOperatorModel(wsOf(), sup(snapOf(ledger, { autopilot: { on: true, paused: true, reason: '5 failures in a row' } })), T0);
    expect(m.autopilot).toEqual({ state: 'paused', reason: '5 failures in a row' });
    expect(autopilotWords(m.autopilot)).toBe('paused: 5 failures in a row');
  });

  it("a read-only observer reads the driver's autopilot from the journal", () => {
    const driverOn = ledgerOf([ev({ type: 'autopilot', at: T0, on: true, reason: 'turned on by the operator' })], T0);
    const m = buildOperatorModel(wsOf(), sup(snapOf(driverOn, { role: 'readonly' })), T0);
    expect(m.autopilot).toEqual({ state: 'on' });
    expect(buildOperatorModel(wsOf(), sup(snapOf(driverOn)), T0).autopilot.state).toBe('off');
  });
});

describe('plan: one entry per cell', () => {
  const n = (p: Partial<NextStep>): NextStep => ({ priority: 1, unit: 'ch01', step: 'memory', action: 'run', reason: 'r', blocks: 0, ...p }) as NextStep;

  it('two entries for ch01 memory become one, the most urgent kept, the other in its detail', () => {
    const next = [n({ priority: 1, action: 'rebuild_memory', reason: 'rebuild the entry' }), n({ unit: 'ch02', step: 'draft' }), n({ priority: 1, action: 'human_review', reason: 'waits on a failed cell', blocks: 2 })];
    const plan = planOf(next);
    expect(plan.map((p) => `${p.unit} ${p.step} ${p.action}`)).toEqual(['ch01 memory rebuild_memory', 'ch02 draft run']);
    expect(plan[0]).toMatchObject({ blocks: 2, also: [{ action: 'human_review', reason: 'waits on a failed cell' }] });
    const urgent = planOf([n({ priority: 2, action: 'backup_redo' }), n({ priority: 1, action: 'human_review' })]);
    expect(urgent).toHaveLength(1);
    expect(urgent[0]).toMatchObject({ action: 'human_review', also: [{ action: 'backup_redo' }] });
  });

  it('a plan without duplicates is the same array (the socket keeps its blocks by identity)', () => {
    const next = [n({}), n({ step: 'draft' })];
    expect(planOf(next)).toBe(next);
  });
});

describe('health: rows by urgency', () => {
  it('escalated, open breakers, failing, running, idle — not alphabetical', () => {
    const events = [
      launch('ch01', 'draft', T0),
      exit('ch01', 'draft', T0 + 1),
      ev({ type: 'escalate', at: T0 + 2, unit: 'ch01', step: 'draft', class: 'PERMISSION', reason: 'r' }),
      launch('ch02', 'draft', T0 + 3),
      exit('ch02', 'draft', T0 + 4),
      launch('ch09', 'research', T0 + 5),
      ev({ type: 'breaker', at: T0, agent: 'zeta', event: 'failure' }),
      ev({ type: 'breaker', at: T0, agent: 'zeta', event: 'failure' }),
    ];
    const ledger = ledgerOf(events, T0 + 10);
    const m = buildOperatorModel(wsOf(), sup(snapOf(ledger, { runs: [run('ch09', 'research', { runId: 'r-ch09-research-1' })] }), { alpha: 1, writer: 1, zeta: 1 }), T0 + 10);
    const names = m.health.map((h) => (h.kind === 'agent' ? `agent ${h.agent}` : `${h.cell.unit} ${h.cell.step}`));
    // writer's two failures opened its breaker too; alpha never ran.
    expect(names).toEqual(['ch01 draft', 'agent writer', 'agent zeta', 'ch02 draft', 'ch09 research', 'agent alpha']);
  });
});
