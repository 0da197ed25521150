import type { AutopilotState, OperatorBreaker, OperatorCounts, OperatorQuota } from './types.js';

// The operator model's facts in words, the same everywhere: every countdown is a deadline
// minus the model's one clock reading (one breaker read "40 s left" in one Plan row
// and "6 s left" in the next, because each surface kept its own `remainingMs`).

/** "4 s", "2 m 05 s", "1 h 02 m". */
export const duration = (ms: number): string => {
  const s = Math.max(0, Math.ceil(ms / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} m ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} m`;
};

/** Time left to a deadline at the model's clock reading, never negative. */
export const remaining = (deadline: number, at: number): number => Math.max(0, deadline - at);

/** Breaker state in words, with its countdown: "open 4 s left", "half-open (…)", "held by the operator", "closed". */
export function breakerWords(b: OperatorBreaker | undefined, at: number): string {
  if (!b) return 'closed';
  switch (b.state) {
    case 'open':
      return `open ${duration(remaining(b.deadline ?? at, at))} left`;
    case 'half_open':
      return 'half-open (next launch probes)';
    case 'held':
      return 'held by the operator';
    case 'closed':
      return 'closed';
  }
}

/** "writer 1/2": runs in flight against the agent's concurrency limit. */
export const slotWords = (b: OperatorBreaker): string => `${b.agent} ${b.slots.used}/${b.slots.limit ?? '-'}`;

/** An agent's consecutive failures against its breaker's threshold (a count, not a fraction: it goes on past the threshold). */
export const failureWords = (consecutive: number, threshold: number): string =>
  `${consecutive} failure${consecutive === 1 ? '' : 's'} in a row (opens at ${threshold})`;

/** "on", "paused: 5 failures in a row", "off": the header, Plan, Health and the status line say this. */
export const autopilotWords = (a: AutopilotState): string => (a.state === 'paused' ? `paused: ${a.reason}` : a.state);

/**
 * "5 partials": the files the Partials view lists (half-products and suspects), the number its
 * tab shows; not the cells whose status is partial (the tab said Partials (36) while
 * the header said "2 partial").
 */
export const partialsWords = (c: Pick<OperatorCounts, 'halfProducts' | 'suspects'>): string => {
  const n = c.halfProducts + c.suspects;
  return `${n} partial${n === 1 ? '' : 's'}`;
};

/** " (adopted)" / " (driver's)": who started a run this instance watches. */
export const originWords = (origin: 'adopted' | 'driver' | undefined): string => (origin === 'adopted' ? ' (adopted)' : origin === 'driver' ? " (driver's)" : '');

/** "quota resets in 2 m 05 s": an account's one countdown, for the header (docs/quota.md). */
export const quotaCountdown = (q: Pick<OperatorQuota, 'deadline'>, at: number): string => `quota resets in ${duration(remaining(q.deadline, at))}`;

/** Health's line of a waiting account: which, when, how long, who waits. `clock`: the reset as the local time of day. */
export const quotaLine = (q: OperatorQuota, at: number, clock: string): string =>
  `quota reset ${duration(remaining(q.deadline, at))} left (${clock}) · ${q.agents.join(', ')} wait${q.cells ? ` (${q.cells} cell${q.cells === 1 ? '' : 's'})` : ''} · ${q.label} · not counted as attempts`;
