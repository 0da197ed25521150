import type { BreakerConfig, FailureClass, Limits } from '../pipeline/config-types.js';
import { cellKey } from '../types.js';
import { breakerInit, breakerReduce, breakerView, canLaunch, type BreakerEvent, type BreakerState, type BreakerView } from './breaker.js';
import type { AttemptClass } from './classify.js';
import type { DecisionEvent, JournalEvent, LaunchEvent } from './journal.js';
import { countByClass, currentEpisode, type AttemptRecord } from './policy.js';

// Replaying the journal gives everything the UI shows about runs: per-cell attempts and
// counters, per-agent breakers, global death-spiral counters and the runs still alive. It is
// a fold over events, so after a restart (even kill -9) the state is what it was
// (DOMAIN.md sections 1 and 9). replayJournal is the reference; a long-running supervisor
// keeps the same fold up to date event by event instead (ledger-fold.ts).

export type CellRunState = 'idle' | 'running' | 'retrying' | 'needs_human' | 'done';

export interface CellLedger {
  key: string;
  unit: string;
  step: string;
  agent: string | null;
  /** Attempts since the last reset_cell decision, oldest first. */
  attempts: AttemptRecord[];
  /** Failures per class since the last success (after circular-fix re-classing). */
  counts: Partial<Record<FailureClass, number>>;
  lastClass: AttemptClass | null;
  lastErrorTail: string[];
  /** How often the latest failure's (command, error) fingerprint pair occurred since the last success. */
  fingerprintRepeats: number;
  state: CellRunState;
  nextRetryAt: number | null;
  /** Reason of the last retry or escalation. */
  reason: string | null;
  escalation: { class: FailureClass; reason: string } | null;
  /** The live run of this cell, if any. */
  runId: string | null;
}

export interface AgentLedger {
  agent: string;
  breaker: BreakerState;
  view: BreakerView;
  canLaunch: boolean;
}

/** A launch with no exit and no reaped event: a restarted checkroom must reap and triage it. */
export type LiveRun = Omit<LaunchEvent, 'type' | 'v'>;

export interface Ledger {
  cells: Record<string, CellLedger>;
  agents: Record<string, AgentLedger>;
  liveRuns: LiveRun[];
  /** Failures in a row across all agents (a success resets it; cancels do not count). */
  consecutiveFailures: number;
  /** Launches since the last session start event. */
  launchesThisSession: number;
  sessionStartedAt: number | null;
  autopilot: { on: boolean; reason: string; at: number } | null;
  /** A global limit stops autopilot (section 9: death-spiral protection). */
  paused: boolean;
  pausedReason: string | null;
  decisions: DecisionEvent[];
}

export interface LedgerConfig {
  breaker: BreakerConfig;
  limits: Pick<Limits, 'maxLaunches' | 'maxConsecutiveFailures'>;
}

export const newCell = (unit: string, step: string): CellLedger => ({
  key: cellKey(unit, step),
  unit,
  step,
  agent: null,
  attempts: [],
  counts: {},
  lastClass: null,
  lastErrorTail: [],
  fingerprintRepeats: 0,
  state: 'idle',
  nextRetryAt: null,
  reason: null,
  escalation: null,
  runId: null,
});

export const repeatsOfLast = (attempts: readonly AttemptRecord[]): number => {
  const episode = currentEpisode(attempts);
  const last = episode[episode.length - 1];
  if (!last) return 0;
  return episode.filter((r) => r.cmdFp === last.cmdFp && r.errFp === last.errFp).length;
};

export const failureSummary = (cls: AttemptClass, tail: readonly string[]): string => {
  const line = [...tail].reverse().find((l) => l.trim() !== '');
  return line ? `${cls}: ${line.trim().slice(0, 160)}` : cls;
};

/** The breakers as seen at `now`: cooldowns end and breakers half-open by the clock, not by events. */
export const agentsAt = (breakers: ReadonlyMap<string, BreakerState>, now: number, cfg: LedgerConfig): Record<string, AgentLedger> => {
  const agents: Record<string, AgentLedger> = {};
  for (const [agent, state] of breakers) {
    agents[agent] = { agent, breaker: state, view: breakerView(state, now, cfg.breaker), canLaunch: canLaunch(state, now, cfg.breaker) };
  }
  return agents;
};

/** Why a global limit stops autopilot (section 9: death-spiral protection), or null. */
export const pausedReasonOf = (consecutiveFailures: number, launchesThisSession: number, cfg: LedgerConfig): string | null => {
  if (consecutiveFailures >= cfg.limits.maxConsecutiveFailures) {
    return `${consecutiveFailures} consecutive failures across agents (limit ${cfg.limits.maxConsecutiveFailures})`;
  }
  if (launchesThisSession >= cfg.limits.maxLaunches) {
    return `launch budget of this session used (${launchesThisSession} of ${cfg.limits.maxLaunches})`;
  }
  return null;
};

export const replayJournal = (events: readonly JournalEvent[], now: number, cfg: LedgerConfig): Ledger => {
  const cells = new Map<string, CellLedger>();
  const breakers = new Map<string, BreakerState>();
  const live = new Map<string, LiveRun>();
  const decisions: DecisionEvent[] = [];
  let consecutiveFailures = 0;
  let launchesThisSession = 0;
  let sessionStartedAt: number | null = null;
  let autopilot: Ledger['autopilot'] = null;

  const cell = (unit: string, step: string): CellLedger => {
    const key = cellKey(unit, step);
    let c = cells.get(key);
    if (!c) cells.set(key, (c = newCell(unit, step)));
    return c;
  };
  const feed = (agent: string, e: BreakerEvent): void => {
    breakers.set(agent, breakerReduce(breakers.get(agent) ?? breakerInit(), e, cfg.breaker));
  };

  for (const e of events) {
    switch (e.type) {
      case 'session':
        if (e.kind === 'start') {
          launchesThisSession = 0;
          sessionStartedAt = e.at;
        }
        break;
      case 'launch': {
        const { type: _t, v: _v, ...run } = e;
        live.set(e.runId, run);
        launchesThisSession++;
        const c = cell(e.unit, e.step);
        c.agent = e.agent;
        c.state = 'running';
        c.runId = e.runId;
        c.nextRetryAt = null;
        feed(e.agent, { type: 'launch', at: e.at });
        break;
      }
      case 'exit': {
        const run = live.get(e.runId);
        live.delete(e.runId);
        const c = cell(e.unit, e.step);
        const attempt = run?.attempt ?? c.attempts.length + 1;
        c.attempts.push({ attempt, class: e.class, cmdFp: e.cmdFp, errFp: e.errFp, keywords: e.keywords, at: e.at });
        c.agent = e.agent;
        c.lastClass = e.class;
        if (c.runId === e.runId) c.runId = null;
        if (e.class === 'SUCCESS') {
          c.state = 'done';
          c.escalation = null;
          c.reason = null;
          consecutiveFailures = 0;
          feed(e.agent, { type: 'success', at: e.at });
        } else if (e.class === 'CANCELLED') {
          // An operator cancel is not a fault: no counter moves (section 9, classify first).
          c.state = 'idle';
          feed(e.agent, { type: 'abandon', at: e.at });
        } else {
          c.state = 'idle';
          c.lastErrorTail = e.errorTail;
          consecutiveFailures++;
          feed(e.agent, { type: 'failure', at: e.at, summary: failureSummary(e.class, e.errorTail) });
        }
        break;
      }
      case 'reaped': {
        const run = live.get(e.runId);
        live.delete(e.runId);
        if (run) {
          const c = cell(run.unit, run.step);
          if (c.runId === e.runId) {
            c.runId = null;
            c.state = 'idle';
          }
          feed(run.agent, { type: 'abandon', at: e.at });
        }
        break;
      }
      case 'retry_scheduled': {
        const c = cell(e.unit, e.step);
        c.state = 'retrying';
        c.nextRetryAt = e.at + e.delayMs;
        c.reason = e.reason;
        break;
      }
      case 'escalate': {
        const c = cell(e.unit, e.step);
        c.state = 'needs_human';
        c.nextRetryAt = null;
        c.reason = e.reason;
        c.escalation = { class: e.class, reason: e.reason };
        break;
      }
      case 'breaker':
        feed(e.agent, e.event === 'failure' ? { type: 'failure', at: e.at, summary: e.summary } : { type: e.event, at: e.at });
        break;
      case 'decision':
        decisions.push(e);
        if (e.kind === 'reset_cell' && e.unit !== undefined && e.step !== undefined) {
          const c = cell(e.unit, e.step);
          const fresh = newCell(e.unit, e.step);
          // A run still in flight stays visible; everything counted is forgotten.
          cells.set(c.key, { ...fresh, agent: c.agent, runId: c.runId, state: c.runId ? 'running' : 'idle' });
        }
        break;
      case 'autopilot':
        autopilot = { on: e.on, reason: e.reason, at: e.at };
        // Turning autopilot back on is the operator's answer to a pause: start counting anew.
        if (e.on) consecutiveFailures = 0;
        break;
    }
  }

  for (const c of cells.values()) {
    c.counts = countByClass(c.attempts);
    c.fingerprintRepeats = repeatsOfLast(c.attempts);
  }

  const pausedReason = pausedReasonOf(consecutiveFailures, launchesThisSession, cfg);
  return {
    cells: Object.fromEntries(cells),
    agents: agentsAt(breakers, now, cfg),
    liveRuns: [...live.values()],
    consecutiveFailures,
    launchesThisSession,
    sessionStartedAt,
    autopilot,
    paused: pausedReason !== null,
    pausedReason,
    decisions,
  };
};
