import type { BreakerConfig } from '../../pipeline/config/types.js';

// Per-agent circuit breaker (docs/domain.md, Handling agent faults: a consecutive-failure counter per recovery
// path feeds the breaker; every path has a cap). It is a pure reducer over plain events so a
// restarted checkroom rebuilds it by replaying the journal (ledger.ts).
//
// Why not cockatiel's CircuitBreakerPolicy (3.2.1, installed)? It is an execute-wrapper:
// state changes only inside `policy.execute(fn)`, and time is read from the wall clock
// internally, so "what was the state at event k" cannot be computed from recorded events. It
// does offer `toJSON()`/`initialState` snapshots and `isolate()` for a manual hold, and its
// `halfOpenAfter` accepts a backoff with an `attempt` count — but a snapshot is a second
// source of truth beside the append-only journal, which we want to be the only one, and the
// UI needs the trips count, the failures that opened it and the held state as data. Our
// launches are child processes spanning minutes, not awaited calls. So: hand-written.

export type BreakerStatus = 'closed' | 'open' | 'held';

export interface BreakerState {
  status: BreakerStatus;
  consecutiveFailures: number;
  /** Times the breaker opened since it last closed after a successful probe. */
  trips: number;
  openedAt: number | null;
  cooldownMs: number;
  /** End of the cooldown; past it an open breaker is half-open. */
  until: number | null;
  /** A launch happened while half-open: the one probe is in flight. */
  probeInFlight: boolean;
  /** Summaries of the failures since the last success, newest last (bounded). */
  openedBy: string[];
}

export type BreakerEvent =
  | { type: 'success'; at: number }
  | { type: 'failure'; at: number; summary?: string }
  /** Operator: close and forget. */
  | { type: 'reset'; at: number }
  /** Operator: keep open until released. */
  | { type: 'hold'; at: number }
  | { type: 'release'; at: number }
  /** A launch of this agent; while half-open it is the probe. */
  | { type: 'launch'; at: number }
  /** A launched run ended without a verdict (cancelled, reaped): the probe slot frees up. */
  | { type: 'abandon'; at: number };

export type BreakerViewState = 'closed' | 'open' | 'half_open' | 'held';

export interface BreakerView {
  state: BreakerViewState;
  remainingMs: number;
  consecutiveFailures: number;
  threshold: number;
  trips: number;
  openedBy: string[];
}

const MAX_SUMMARIES = 5;

export const breakerInit = (): BreakerState => ({
  status: 'closed',
  consecutiveFailures: 0,
  trips: 0,
  openedAt: null,
  cooldownMs: 0,
  until: null,
  probeInFlight: false,
  openedBy: [],
});

const threshold = (cfg: BreakerConfig): number => Math.max(1, Math.floor(cfg.threshold) || 1);

/** cooldown * 2^(trips-1), capped at maxCooldown: a breaker that keeps tripping waits longer. */
export const cooldownFor = (trips: number, cfg: BreakerConfig): number => {
  const base = Math.max(0, cfg.cooldownMs);
  const max = Math.max(base, cfg.maxCooldownMs);
  return Math.min(max, base * 2 ** Math.min(Math.max(trips, 1) - 1, 52));
};

const isHalfOpen = (s: BreakerState, at: number): boolean => s.status === 'open' && s.until !== null && at >= s.until;

const trip = (s: BreakerState, at: number, cfg: BreakerConfig): BreakerState => {
  const trips = s.trips + 1;
  const cooldownMs = cooldownFor(trips, cfg);
  return { ...s, status: 'open', trips, openedAt: at, cooldownMs, until: at + cooldownMs, probeInFlight: false };
};

const noteFailure = (s: BreakerState, summary: string | undefined): BreakerState => ({
  ...s,
  consecutiveFailures: s.consecutiveFailures + 1,
  openedBy: summary === undefined ? s.openedBy : [...s.openedBy, summary].slice(-MAX_SUMMARIES),
});

export const breakerReduce = (s: BreakerState, e: BreakerEvent, cfg: BreakerConfig): BreakerState => {
  switch (e.type) {
    case 'reset':
      return breakerInit();
    case 'hold':
      return { ...s, status: 'held', until: null, probeInFlight: false };
    case 'release':
      // Back to normal, but the trip count stays so a still-broken agent cools down longer.
      return s.status === 'held' ? { ...s, status: 'closed', consecutiveFailures: 0, openedAt: null, until: null } : s;
    case 'launch':
      return isHalfOpen(s, e.at) ? { ...s, probeInFlight: true } : s;
    case 'abandon':
      return { ...s, probeInFlight: false };
    case 'success':
      if (s.status === 'held') return { ...s, consecutiveFailures: 0, openedBy: [] };
      if (s.status === 'open' && !isHalfOpen(s, e.at)) {
        // A run launched before the trip finished well; the cooldown and probe still decide.
        return { ...s, consecutiveFailures: 0 };
      }
      // Closed, or the half-open probe succeeded: close and forget the trips.
      return breakerInit();
    case 'failure': {
      const next = noteFailure(s, e.summary);
      if (s.status === 'held') return next;
      if (s.status === 'open') return isHalfOpen(s, e.at) ? trip(next, e.at, cfg) : next;
      return next.consecutiveFailures >= threshold(cfg) ? trip(next, e.at, cfg) : next;
    }
  }
};

export const breakerView = (s: BreakerState, now: number, cfg: BreakerConfig): BreakerView => {
  const base = {
    consecutiveFailures: s.consecutiveFailures,
    threshold: threshold(cfg),
    trips: s.trips,
    openedBy: s.openedBy,
  };
  if (s.status === 'held') return { ...base, state: 'held', remainingMs: 0 };
  if (s.status === 'closed') return { ...base, state: 'closed', remainingMs: 0 };
  if (isHalfOpen(s, now)) return { ...base, state: 'half_open', remainingMs: 0 };
  return { ...base, state: 'open', remainingMs: Math.max(0, (s.until ?? now) - now) };
};

/** Closed: yes. Open: not until the cooldown ends. Half-open: one probe at a time. Held: no. */
export const canLaunch = (s: BreakerState, now: number, _cfg?: BreakerConfig): boolean => {
  if (s.status === 'closed') return true;
  if (s.status === 'held') return false;
  return isHalfOpen(s, now) && !s.probeInFlight;
};
