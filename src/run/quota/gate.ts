import type { AgentDef } from '../../pipeline/config/types.js';
import { accountOf } from './account.js';
import { resetOfLines } from './reset.js';

// The one decision every entry point asks before a launch on an account that hit its quota
// (docs/quota.md): keys, autopilot, `checkroom run`, the socket and a cell's own next attempt,
// whatever executor runs it. The wait is the journal's (ledger `quotaWaits`), so a restart and
// an observer see the same deadline.

/** An account-wide wait as the journal holds it. */
export interface QuotaWait {
  account: string;
  label: string;
  /** Epoch ms: no launch on the account before it. */
  until: number;
  /** The exit that announced it, and how it was read (quota-reset.ts). */
  at: number;
  agent: string;
  source: string;
}

const pad2 = (n: number): string => String(n).padStart(2, '0');

/** "15:00", "15:00:03", or "Dec 9 10:00" when not today: local time, as the header shows. */
export const resetClock = (until: number, now: number): string => {
  const d = new Date(until);
  const hm = `${pad2(d.getHours())}:${pad2(d.getMinutes())}${d.getSeconds() ? `:${pad2(d.getSeconds())}` : ''}`;
  return new Date(now).toDateString() === d.toDateString() ? hm : `${d.toLocaleString('en-US', { month: 'short' })} ${d.getDate()} ${hm}`;
};

export const quotaWords = (w: QuotaWait, now: number): string => `waiting for the account's reset at ${resetClock(w.until, now)} (${w.label})`;

/** The wait an agent's account is under at `now`, or null when it may launch. */
export function quotaWaitOf(waits: Readonly<Record<string, QuotaWait>> | undefined, agent: AgentDef, now: number): QuotaWait | null {
  if (!waits) return null;
  const w = waits[accountOf(agent).id];
  return w && w.until > now ? w : null;
}

/** Quota waits in a row for one cell before its next one counts as a rate limit: every recovery path has a finite cap (docs/domain.md, Handling agent faults). */
export const QUOTA_WAITS_MAX = 12;

/** Classes that say nothing of the account: a reset time in their output is not why they ended. */
const NOT_QUOTA: ReadonlySet<string> = new Set(['SUCCESS', 'CANCELLED', 'STALLED', 'INFRA', 'OOM_KILLED', 'TOOL_NOT_FOUND', 'PERMISSION']);

/** What an exit journals when its output announced the account's reset. */
export interface QuotaHit {
  account: string;
  label: string;
  until: number;
  source: string;
}

/**
 * The account-wide wait a finished attempt announces, or null: its class could be the
 * account's quota, a reset still ahead was read from its lines (quota-reset.ts), and the
 * cell has not waited QUOTA_WAITS_MAX times in a row already.
 */
export function quotaHitOf(cls: string, reset: { until: number; source: string } | null, agent: AgentDef, streak: number): QuotaHit | null {
  if (!reset || NOT_QUOTA.has(cls) || streak >= QUOTA_WAITS_MAX) return null;
  const a = accountOf(agent);
  return { account: a.id, label: a.label, until: reset.until, source: reset.source };
}

/** quotaHitOf over a finished attempt's output: its last lines and its stream's result text. */
export const quotaOfAttempt = (cls: string, lines: readonly string[], resultText: string | null, agent: AgentDef, streak: number, now: number): QuotaHit | null =>
  quotaHitOf(cls, resetOfLines(resultText ? [...lines, resultText] : lines, now), agent, streak);
