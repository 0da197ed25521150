import type { CellLedger, CellRunState } from '../../run/journal/ledger.js';
import type { NextStep } from '../../types.js';
import { cellKey } from '../../types.js';
import type { HealthRow, OperatorCell, OperatorModel, OperatorQuota, OperatorRun } from '../../operator/types.js';
import { breakerWords, duration, originWords, remaining } from '../../operator/words.js';
import type { AgentsUi, RecentRun } from './types.js';

// Words over the operator model (src/operator/) for the Plan, Health and log
// views. No React, no I/O: the model's one clock reading (`m.at`) drives every countdown and
// elapsed time, and a breaker's countdown is its deadline minus that reading, the same in
// every row and view.

/** "attempt 2 of 3" for a run's current attempt, from the model's next-attempt label. */
const attemptWords = (f: OperatorRun, m: OperatorModel): string => {
  const next = m.cells.get(f.key)?.nextAttempt ?? null;
  // The ledger holds the attempts before this one: the label is "this attempt of M".
  return f.attempt > 1 ? (next ?? `attempt ${f.attempt}`) : 'attempt 1';
};

/** A flight's live state in one phrase: "running pid 4242 · 12 s · attempt 2 of 3". */
export function flightState(f: OperatorRun, m: OperatorModel): string {
  if (f.state === 'running' || f.state === 'pending') {
    const what = f.state === 'pending' ? 'pending' : 'running';
    return `${what}${originWords(f.origin)} ${f.job ?? `pid ${f.pid ?? '-'}`}${f.reason ? ` · ${f.reason}` : ''} · ${duration(m.at - (f.startedAt ?? m.at))} · ${attemptWords(f, m)}${f.activity ? ` · now: ${f.activity}` : ''}`;
  }
  // Stopped on its account's quota (docs/quota.md): the account's one deadline, and no attempt is counted.
  const q = quotaOfCell(f.key, m);
  if (q) return `waiting for the account's reset: ${duration(remaining(q.deadline, m.at))} left · not counted as an attempt`;
  if (f.retryAt !== null) {
    const label = m.cells.get(f.key)?.nextAttempt ?? `attempt ${f.attempt + 1}`;
    return `retrying: ${label} in ${duration(remaining(f.retryAt, m.at))}`;
  }
  // Waiting for a breaker: its countdown, from the breaker's deadline (the words
  // baked when the wait began froze at "29 s left" while Health ticked).
  const b = f.breaker ? m.breakers.find((x) => x.agent === f.breaker) : undefined;
  if (b) return `waiting for breaker ${b.agent} (${breakerWords(b, m.at)})`;
  return f.reason || 'waiting';
}

/** A cell's run state in a sentence ("ch01 research: escalated (needs a human), 2 attempts"),
 *  not the raw `needs_human`; the other states read as words already. */
export const runStateWords = (s: CellRunState): string => (s === 'needs_human' ? 'escalated (needs a human)' : s);

/** A Health cell's state in words (its class is in the row's counts and its detail): a running cell says whose run it is. */
/** The account a cell waits for (docs/quota.md), from the model's one list of waiting accounts. */
const quotaOfCell = (key: string, m: OperatorModel): OperatorQuota | undefined => {
  const account = m.cells.get(key)?.ledger?.quota?.account;
  return account ? m.quota.find((q) => q.account === account) : undefined;
};

export function cellStateWords(c: OperatorCell, m: OperatorModel): string {
  if (c.run === 'retrying' && quotaOfCell(c.key, m)) return 'quota wait';
  if (c.run !== 'running' && c.run !== 'pending') return c.run;
  return `${c.run}${originWords(m.runs.find((r) => r.key === c.key)?.origin)}`;
}

/** What stands in the way of (or happened to) a plan entry now, or null. */
export function entryLiveState(n: NextStep, m: OperatorModel, agentOf: (step: string) => string | undefined): { text: string; tone: 'warn' | 'fail' } | null {
  if (n.unit === null || n.step === null) return null;
  const esc = m.cells.get(cellKey(n.unit, n.step))?.escalation;
  // The journal's class, said once (most escalation reasons begin with it).
  if (esc) return { text: esc.reason.startsWith(esc.class) ? `escalated: ${esc.reason}` : `escalated ${esc.class}: ${esc.reason}`, tone: 'fail' };
  const agent = agentOf(n.step);
  const b = agent ? m.breakers.find((x) => x.agent === agent) : undefined;
  if (b && b.seen && !b.canLaunch) return { text: `blocked: breaker ${b.agent} ${breakerWords(b, m.at)}`, tone: 'warn' };
  return null;
}

/** "RATE_LIMITED 2 · UNKNOWN 1", or "" when nothing failed since the last success. */
export const classCounts = (c: CellLedger): string =>
  Object.entries(c.counts)
    .filter(([, n]) => (n ?? 0) > 0)
    .map(([cls, n]) => `${cls} ${n}`)
    .join(' · ');

/** A Health row: an agent with its breaker, or a cell with its run facts (the operator model's, by urgency). */
export type HealthItem = HealthRow;

export const MAX_RECENT = 8;
const MAX_RECENT_LINES = 200;

/** Keep the last lines of runs that just left the snapshot (bounded: 8 runs × 200 lines). */
export function rememberEnded(prev: AgentsUi, next: AgentsUi['snap'], seen: (runId: string) => readonly string[] | undefined = () => undefined): RecentRun[] {
  const live = new Set(next?.runs.map((r) => r.runId) ?? []);
  let recent = prev.recent;
  for (const r of prev.snap?.runs ?? []) {
    if (live.has(r.runId)) continue;
    const key = cellKey(r.unit, r.step);
    // Lines that arrived after the last flush are only in the output events the feed saw.
    const heard = seen(r.runId) ?? [];
    const lines = (heard.length > r.lines.length ? heard : r.lines).slice(-MAX_RECENT_LINES);
    recent = [{ key, runId: r.runId, logPath: r.logPath, lines, outcome: null }, ...recent.filter((x) => x.key !== key)].slice(0, MAX_RECENT);
  }
  return recent;
}

/** A bounded per-run line store for the feed (output events between two flushes). */
export function lineKeeper(maxRuns = 16, maxLines = MAX_RECENT_LINES) {
  const runs = new Map<string, string[]>();
  return {
    add(runId: string, line: string): void {
      let l = runs.get(runId);
      if (!l) {
        if (runs.size >= maxRuns) runs.delete(runs.keys().next().value!);
        runs.set(runId, (l = []));
      }
      l.push(line);
      if (l.length > maxLines * 2) l.splice(0, l.length - maxLines);
    },
    get: (runId: string): string[] | undefined => runs.get(runId),
  };
}

/** The output to show for a cell: its live run, else the last run that ended. */
export function logFor(a: AgentsUi, key: string | null): { title: string; lines: string[]; logPath: string; live: boolean } | null {
  if (!a.snap) return null;
  const run = key ? a.snap.runs.find((r) => cellKey(r.unit, r.step) === key) : a.snap.runs[0];
  if (run) return { title: `${run.unit} ${run.step} · attempt ${run.attempt} · pid ${run.pid ?? '-'}${originWords(run.origin)}`, lines: run.lines, logPath: run.logPath, live: true };
  const rec = key ? a.recent.find((r) => r.key === key) : a.recent[0];
  if (rec) return { title: `${rec.key.replace('/', ' ')} · ended${rec.outcome ? `: ${rec.outcome}` : ''}`, lines: rec.lines, logPath: rec.logPath, live: false };
  return null;
}
