import { KEPT_REASON } from '../supervisor/takeover.js';
import { cellKey } from '../../types.js';
import { breakerInit, breakerReduce, type BreakerEvent, type BreakerState } from '../policy/breaker.js';
import type { DecisionEvent, JournalEvent } from './journal.js';
import { agentsAt, failureSummary, newCell, pausedReasonOf, repeatsOfLast, type CellLedger, type Ledger, type LedgerConfig, type LiveRun } from './ledger.js';
import { countByClass } from '../policy/policy.js';
import { legacyErrorOf } from '../attempt/failure-message.js';
import { infraBreakerOf } from '../executors/infra.js';
import { CostFold } from './costs.js';
import { emptyTriage, triageStep, type TriageLedger } from './triage-ledger.js';
import { SampleFold } from '../../foresight/samples.js';
import { QuotaFold, quotaOfExit } from '../quota/fold.js';
import { BulkFold, type CellAccess } from '../../bulk/fold.js';
import { foldPause, NO_PAUSE, type PauseState } from '../policy/pause.js';
import { foldJob, foldJobExit } from './job-fold.js';

// The ledger kept up to date one appended event at a time. Replaying the whole journal after
// every event made a long session O(n²); this fold keeps the state between calls and applies
// only the new events. replayJournal is this fold run from the start, so folding in pieces
// must give what folding at once gives (test/core/run/journal/ledger-fold-property.test.ts: random journals
// split at random points, viewed at random clocks).
//
// What the clock decides (cooldowns ending, breakers half-opening) is still computed at
// `now` on every view. Ledgers handed out are never changed afterwards: a cell is copied the
// first time an event touches it after a view, so callers (the UI store) may keep old ones.

type Shown = Pick<Ledger, 'cells' | 'liveRuns' | 'decisions'>;

export class LedgerFold {
  /** Events folded so far. */
  count = 0;
  private readonly cells = new Map<string, CellLedger>();
  /** Cells changed since the last view: this fold's own copies, safe to change in place. */
  private readonly touched = new Set<string>();
  private readonly breakers = new Map<string, BreakerState>();
  private readonly live = new Map<string, LiveRun>();
  private readonly decisions: DecisionEvent[] = [];
  /** The cells as last rebuilt in full, and the cells published since then. */
  private base: Record<string, CellLedger> = {};
  private readonly patch = new Map<string, CellLedger>();
  private liveChanged = false;
  private decisionsChanged = false;
  private consecutiveFailures = 0;
  private launchesThisSession = 0;
  private launchesInWorkspace = 0;
  private sessionStartedAt: number | null = null;
  private autopilot: Ledger['autopilot'] = null;
  private concurrency: Record<string, number> = {};
  private handedOver: Ledger['handedOver'] = null;
  /** Immutable steps (triage-ledger.ts): a view may hand it out as is. */
  private triage: TriageLedger = emptyTriage();
  private shown: Shown = { cells: {}, liveRuns: [], decisions: [] };
  private readonly costs = new CostFold();
  /** Accounts waiting for their quota's reset, and the cells stopped on them (docs/quota.md). */
  private readonly quota = new QuotaFold();
  private readonly samples = new SampleFold();
  private readonly bulk = new BulkFold();
  /** The bulk fold's way to the cells, copy-on-write like every change here. */
  private readonly access: CellAccess = {
    peek: (key) => this.cells.get(key),
    edit: (unit, step) => this.cell(unit, step),
    replace: (c) => {
      this.cell(c.unit, c.step);
      this.cells.set(c.key, c);
    },
  };
  /** Drain and pauses (docs/drain.md): immutable, a view hands it out as is. */
  private pause: PauseState = NO_PAUSE;

  constructor(private readonly cfg: LedgerConfig) {}

  /** Fold events that follow the ones already folded. */
  apply(events: Iterable<JournalEvent>): this {
    for (const e of events) {
      this.step(e);
      this.triage = triageStep(this.triage, e);
      this.samples.feed(e);
      this.count++;
    }
    return this;
  }

  /** The ledger at `now`: what replayJournal gives for the same events and clock. */
  at(now: number): Ledger {
    const shown = this.show();
    const costs = this.costs.view();
    const counts = { launchesThisSession: this.launchesThisSession, launchesInWorkspace: this.launchesInWorkspace, costs };
    const pausedReason = pausedReasonOf(this.consecutiveFailures, counts, this.cfg);
    return {
      cells: shown.cells,
      agents: agentsAt(this.breakers, now, this.cfg),
      liveRuns: shown.liveRuns,
      consecutiveFailures: this.consecutiveFailures,
      launchesThisSession: this.launchesThisSession,
      launchesInWorkspace: this.launchesInWorkspace,
      sessionStartedAt: this.sessionStartedAt,
      autopilot: this.autopilot,
      concurrency: { ...this.concurrency },
      handedOver: this.handedOver,
      paused: pausedReason !== null,
      pausedReason,
      decisions: shown.decisions,
      costs,
      triage: this.triage,
      quotaWaits: this.quota.view(now),
      durations: this.samples.view(),
      bulk: this.bulk.view(),
      pause: this.pause,
    };
  }

  /** Publish what changed since the last view; what did not change is shared with it. */
  private show(): Shown {
    if (this.touched.size === 0 && !this.liveChanged && !this.decisionsChanged) return this.shown;
    let cells = this.shown.cells;
    if (this.touched.size > 0) {
      for (const key of this.touched) {
        const c = this.cells.get(key)!;
        c.counts = countByClass(c.attempts);
        c.fingerprintRepeats = repeatsOfLast(c.attempts);
        this.patch.set(key, c);
      }
      this.touched.clear();
      cells = this.cellRecord();
    }
    this.shown = {
      cells,
      liveRuns: this.liveChanged ? [...this.live.values()] : this.shown.liveRuns,
      decisions: this.decisionsChanged ? [...this.decisions] : this.shown.decisions,
    };
    this.liveChanged = false;
    this.decisionsChanged = false;
    return this.shown;
  }

  /**
   * Every cell as a record. Object.fromEntries over 1,000 cells costs about a millisecond, and
   * so does spreading a record that was itself a spread (V8's fast clone needs a stable
   * source shape); spreading one record built in full and writing the few changed cells over
   * it costs microseconds. The full record is rebuilt once a quarter of the cells changed.
   * Key order stays the map's: changed cells keep their place, new ones come last in order.
   */
  private cellRecord(): Record<string, CellLedger> {
    if (this.patch.size * 4 > this.cells.size) {
      this.base = Object.fromEntries(this.cells);
      this.patch.clear();
      return this.base;
    }
    const cells = { ...this.base };
    for (const [key, c] of this.patch) cells[key] = c;
    return cells;
  }

  /** A cell this fold may change: created, or copied if a view already handed it out. */
  private cell(unit: string, step: string): CellLedger {
    const key = cellKey(unit, step);
    const c = this.cells.get(key);
    if (c && this.touched.has(key)) return c;
    const own = c ? { ...c, attempts: [...c.attempts] } : newCell(unit, step);
    this.cells.set(key, own);
    this.touched.add(key);
    return own;
  }

  private feed(agent: string, e: BreakerEvent): void {
    this.breakers.set(agent, breakerReduce(this.breakers.get(agent) ?? breakerInit(), e, this.cfg.breaker));
  }

  private endRun(runId: string): LiveRun | undefined {
    const run = this.live.get(runId);
    if (this.live.delete(runId)) this.liveChanged = true;
    return run;
  }

  private launched(e: Extract<JournalEvent, { type: 'launch' }>): void {
    const { type: _t, v: _v, ...run } = e;
    this.live.set(e.runId, run);
    this.liveChanged = true;
    this.launchesThisSession++;
    this.launchesInWorkspace++;
    const c = this.cell(e.unit, e.step);
    c.agent = e.agent;
    c.state = 'running';
    c.runId = e.runId;
    c.nextRetryAt = null;
    c.quota = null;
    this.feed(e.agent, { type: 'launch', at: e.at });
    const infra = infraBreakerOf(e.executor);
    if (infra && this.breakers.has(infra)) this.feed(infra, { type: 'launch', at: e.at });
    // Launched: no longer in a redrive's queue (its undo leaves what ran).
    this.bulk.launched(e.unit, e.step);
  }

  /** A named set action or its undo (docs/redrive.md): the bulk fold changes the cells through `access`. */
  private bulkStep(e: Extract<JournalEvent, { type: 'bulk_action' | 'bulk_undo' }>): void {
    if (e.type === 'bulk_action') this.bulk.act(e, this.access);
    else this.bulk.undo(e, this.access);
  }

  private exited(e: Extract<JournalEvent, { type: 'exit' }>): void {
    // The account's quota (docs/quota.md): a wait, not a counted failure — no attempt, cap,
    // breaker failure or consecutive failure moves; the cluster ran the job, its infra breaker closes.
    const q = quotaOfExit(e);
    if (q) {
      const run = this.endRun(e.runId);
      this.quota.exit(e, q, (unit, step) => this.cell(unit, step));
      this.feed(e.agent, { type: 'abandon', at: e.at });
      const infra = infraBreakerOf(run?.executor);
      if (infra && this.breakers.has(infra)) this.feed(infra, { type: 'success', at: e.at });
      return;
    }
    const run = this.endRun(e.runId);
    const c = this.cell(e.unit, e.step);
    c.quotaStreak = 0;
    const attempt = run?.attempt ?? c.attempts.length + 1;
    c.attempts.push({ attempt, class: e.class, cmdFp: e.cmdFp, errFp: e.errFp, keywords: e.keywords, at: e.at });
    foldJobExit(c, e);
    c.agent = e.agent;
    c.lastClass = e.class;
    if (c.runId === e.runId) c.runId = null;
    if (e.class === 'SUCCESS') {
      c.state = 'done';
      c.escalation = null;
      c.reason = null;
      this.consecutiveFailures = 0;
      this.feed(e.agent, { type: 'success', at: e.at });
    } else if (e.class === 'CANCELLED') {
      // An operator cancel is not a fault: no counter moves (classify first: docs/domain.md, Handling agent faults).
      // It is a decision, though: the cell is held until the operator launches it again, in
      // this session and after any restart.
      c.state = 'idle';
      if (e.cancelledBy !== 'shutdown') c.hold = { at: e.at, why: e.error || 'cancelled' };
      this.feed(e.agent, { type: 'abandon', at: e.at });
    } else if (e.class === 'INFRA') {
      // A cluster fault is not the agent's: its breaker and the global
      // consecutive-failure count stay as they were; the executor's own breaker counts it.
      c.state = 'idle';
      c.lastErrorTail = e.errorTail;
      c.lastError = e.error ?? legacyErrorOf(e.errorTail);
      this.feed(e.agent, { type: 'abandon', at: e.at });
      const infra = infraBreakerOf(run?.executor);
      if (infra) this.feed(infra, { type: 'failure', at: e.at, summary: failureSummary(e.class, c.lastError) });
    } else {
      c.state = 'idle';
      c.lastErrorTail = e.errorTail;
      c.lastError = e.error ?? legacyErrorOf(e.errorTail);
      this.consecutiveFailures++;
      this.feed(e.agent, { type: 'failure', at: e.at, summary: failureSummary(e.class, c.lastError) });
    }
    // The cluster ran the job (whatever the agent made of it): its infra breaker closes.
    const infra = infraBreakerOf(run?.executor);
    if (infra && e.class !== 'INFRA' && this.breakers.has(infra)) this.feed(infra, { type: e.class === 'CANCELLED' ? 'abandon' : 'success', at: e.at });
  }

  private reset(unit: string, step: string): void {
    const c = this.cell(unit, step);
    // A run still in flight stays visible; everything counted is forgotten.
    this.cells.set(c.key, { ...newCell(unit, step), agent: c.agent, runId: c.runId, state: c.runId ? 'running' : 'idle' });
  }

  private reaped(e: Extract<JournalEvent, { type: 'reaped' }>): void {
    const run = this.endRun(e.runId);
    if (!run) return;
    const c = this.cell(run.unit, run.step);
    if (c.runId === e.runId) {
      c.runId = null;
      c.state = 'idle';
    }
    this.feed(run.agent, { type: 'abandon', at: e.at });
  }

  private step(e: JournalEvent): void {
    switch (e.type) {
      case 'session':
        // Kept from a handover's stop until the next session starts.
        this.handedOver = e.kind === 'stop' && e.reason === 'handover' ? { at: e.at, pid: e.pid } : null;
        if (e.kind === 'start') {
          this.launchesThisSession = 0;
          this.sessionStartedAt = e.at;
          this.costs.sessionStart();
        }
        break;
      case 'agent_facts':
        this.costs.facts(e);
        break;
      case 'launch':
        this.launched(e);
        break;
      case 'bulk_action':
      case 'bulk_undo':
        this.bulkStep(e);
        break;
      case 'exit':
        this.exited(e);
        break;
      case 'reaped':
        this.reaped(e);
        break;
      case 'retry_scheduled': {
        const c = this.cell(e.unit, e.step);
        c.state = 'retrying';
        c.nextRetryAt = e.at + e.delayMs;
        c.reason = e.reason;
        break;
      }
      case 'escalate': {
        const c = this.cell(e.unit, e.step);
        c.state = 'needs_human';
        c.nextRetryAt = null;
        c.reason = e.reason;
        c.escalation = { class: e.class, reason: e.reason };
        break;
      }
      case 'breaker':
        this.feed(e.agent, e.event === 'failure' ? { type: 'failure', at: e.at, summary: e.summary } : { type: e.event, at: e.at });
        break;
      case 'decision':
        this.decisions.push(e);
        this.decisionsChanged = true;
        if ((e.kind === 'hold' || e.kind === 'release') && e.unit !== undefined && e.step !== undefined) {
          const c = this.cell(e.unit, e.step);
          c.hold = e.kind === 'hold' ? { at: e.at, why: e.note ?? 'held by the operator' } : null;
        }
        if (e.kind === 'reset_cell' && e.unit !== undefined && e.step !== undefined) this.reset(e.unit, e.step);
        break;
      case 'redo_applied':
        // A redo from here resets every cell it queues, as Z does (docs/redo.md).
        for (const c of e.cells) this.reset(c.unit, c.step);
        break;
      case 'adopted': {
        const run = this.live.get(e.runId);
        if (run) {
          this.live.set(e.runId, { ...run, adoptedBy: e.by });
          this.liveChanged = true;
        }
        break;
      }
      case 'pause':
      case 'drained':
        this.pause = foldPause(this.pause, e);
        break;
      case 'job':
        foldJob(this.cell(e.unit, e.step), e);
        break;
      case 'concurrency':
        this.concurrency = { ...this.concurrency, [e.agent]: e.concurrency };
        break;
      case 'autopilot':
        this.autopilot = { on: e.on, reason: e.reason, at: e.at };
        // Turning autopilot back on is the operator's answer to a pause: start counting anew.
        // A take-over keeping the driver's autopilot is not that answer.
        if (e.on && e.reason !== KEPT_REASON) this.consecutiveFailures = 0;
        break;
    }
  }
}

/** The ledger of a whole journal at `now` (a restart, a read-only instance): the fold, from the start. */
export const replayJournal = (events: readonly JournalEvent[], now: number, cfg: LedgerConfig): Ledger => new LedgerFold(cfg).apply(events).at(now);
