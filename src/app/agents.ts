import type { Limits } from '../pipeline/config-types.js';
import type { AgentLedger, CellLedger, CellRunState } from '../run/ledger.js';
import { decideNext } from '../run/policy.js';
import type { NextStep } from '../types.js';
import { cellKey } from '../types.js';
import type { AgentsUi, FlightItem, RecentRun } from './agents-types.js';

// Pure derivations over the supervisor snapshot for the Plan, Health and log views. No
// React, no I/O: the snapshot's clock reading (`at`) drives every countdown, so a frame
// is a function of the store.

const byKey = (a: { unit: string; step: string }, b: { unit: string; step: string }): number =>
  a.unit.localeCompare(b.unit, 'en', { numeric: true }) || a.step.localeCompare(b.step);

/** "4 s", "2 m 05 s", "1 h 02 m". */
export const duration = (ms: number): string => {
  const s = Math.max(0, Math.ceil(ms / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} m ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} m`;
};

/** Cells in flight: running processes, then cells waiting for their next attempt. */
export function flightItems(a: AgentsUi): FlightItem[] {
  const snap = a.snap;
  if (!snap) return [];
  const out: FlightItem[] = snap.runs.map((r) => ({
    key: cellKey(r.unit, r.step),
    unit: r.unit,
    step: r.step,
    agent: r.agent,
    state: 'running' as const,
    runId: r.runId,
    pid: r.pid,
    attempt: r.attempt,
    startedAt: r.startedAt,
    retryAt: null,
    // Issue 12: what the scheduler says of a queued job ("waiting: Resources").
    reason: r.why ?? '',
    logPath: r.logPath,
    ...(r.job ? { job: `${r.job.executor} job ${r.job.id}` } : {}),
    ...(r.activity ? { activity: r.activity } : {}),
    ...(r.origin ? { origin: r.origin } : {}),
  }));
  const seen = new Set(out.map((f) => f.key));
  for (const w of snap.waiting) {
    const key = cellKey(w.unit, w.step);
    if (seen.has(key)) continue;
    seen.add(key);
    const cell = snap.ledger.cells[key];
    out.push({ key, unit: w.unit, step: w.step, agent: w.agent, state: 'waiting', runId: null, pid: null, attempt: cell?.attempts.length ?? 0, startedAt: null, retryAt: w.retryAt, reason: w.reason, logPath: null });
  }
  return out.sort(byKey);
}

/** "attempt 2 of 3" for the attempt after the cell's last failure, when the caps allow one. */
export function nextAttemptLabel(cell: CellLedger | undefined, limits: Limits | null): string | null {
  if (!cell || !limits || cell.attempts.length === 0) return null;
  const next = decideNext(cell.attempts, limits, () => 0.5);
  return next.kind === 'retry' ? `attempt ${next.attempt} of ${next.maxAttempts}` : null;
}

/** A flight's live state in one phrase: "running pid 4242 · 12 s · attempt 2 of 3". */
export function flightState(f: FlightItem, a: AgentsUi): string {
  const cell = a.snap?.ledger.cells[f.key];
  if (f.state === 'running') {
    // The ledger holds the attempts before this one: the label is "this attempt of M".
    const label = f.attempt > 1 ? (nextAttemptLabel(cell, a.limits) ?? `attempt ${f.attempt}`) : 'attempt 1';
    return `running${originWords(f.origin)} ${f.job ?? `pid ${f.pid ?? '-'}`}${f.reason ? ` · ${f.reason}` : ''} · ${duration(a.at - (f.startedAt ?? a.at))} · ${label}${f.activity ? ` · now: ${f.activity}` : ''}`;
  }
  if (f.retryAt !== null) {
    const label = nextAttemptLabel(cell, a.limits) ?? `attempt ${f.attempt + 1}`;
    return `retrying: ${label} in ${duration(f.retryAt - a.at)}`;
  }
  return f.reason || 'waiting';
}

/** " (adopted)" / " (driver's)": who started a run this instance watches (issue 8 items 4, 5). */
export const originWords = (origin: 'adopted' | 'driver' | undefined): string => (origin === 'adopted' ? ' (adopted)' : origin === 'driver' ? " (driver's)" : '');

/** A cell's run state in a sentence ("ch01 research: escalated (needs a human), 2 attempts"),
 *  not the raw `needs_human`; the other states read as words already. */
export const runStateWords = (s: CellRunState): string => (s === 'needs_human' ? 'escalated (needs a human)' : s);

/** A Health cell's state in words: a running cell says whose run it is. */
export function cellStateWords(c: CellLedger, a: AgentsUi): string {
  if (c.state === 'needs_human') return 'escalated';
  if (c.state !== 'running') return c.state;
  const run = a.snap?.runs.find((r) => r.runId === c.runId);
  return `running${originWords(run?.origin)}`;
}

/** Breaker state in words, with its countdown: "open 4 s", "half-open", "held", "closed". */
export function breakerWords(ag: AgentLedger | undefined): string {
  if (!ag) return 'closed';
  const v = ag.view;
  switch (v.state) {
    case 'open':
      return `open ${duration(v.remainingMs)} left`;
    case 'half_open':
      return 'half-open (next launch probes)';
    case 'held':
      return 'held by the operator';
    case 'closed':
      return 'closed';
  }
}

/** An agent's consecutive failures against its breaker's threshold. Not "failures 4 of 2":
 *  the count goes on past the threshold while the breaker is open (each failed probe adds
 *  one), so it is a count and the point at which the breaker opens, not a fraction. */
export const failureWords = (consecutive: number, threshold: number): string =>
  `${consecutive} failure${consecutive === 1 ? '' : 's'} in a row (opens at ${threshold})`;

/** What stands in the way of (or happened to) a plan entry now, or null. */
export function entryLiveState(n: NextStep, a: AgentsUi, agentOf: (step: string) => string | undefined): { text: string; tone: 'warn' | 'fail' } | null {
  if (!a.snap || n.unit === null || n.step === null) return null;
  const cell = a.snap.ledger.cells[cellKey(n.unit, n.step)];
  if (cell?.state === 'needs_human') return { text: `escalated: ${cell.reason ?? 'needs a human'}`, tone: 'fail' };
  const agent = agentOf(n.step);
  const ag = agent ? a.snap.ledger.agents[agent] : undefined;
  if (ag && !ag.canLaunch) return { text: `blocked: breaker ${ag.agent} ${breakerWords(ag)}`, tone: 'warn' };
  return null;
}

export type HealthItem = { kind: 'agent'; agent: string; ledger: AgentLedger | undefined } | { kind: 'cell'; cell: CellLedger };

/** The Health view's rows: every agent (configured or seen), then every cell with attempts or running. */
export function healthItems(a: AgentsUi): HealthItem[] {
  const l = a.snap?.ledger;
  const names = [...new Set([...a.agentNames, ...Object.keys(l?.agents ?? {})])].sort();
  const cells = Object.values(l?.cells ?? {})
    // A running cell is listed from its first attempt on: an adopted one must show (issue 8 item 4).
    .filter((c) => c.attempts.length > 0 || c.state === 'needs_human' || c.state === 'retrying' || c.state === 'running')
    .sort(byKey);
  return [...names.map((agent) => ({ kind: 'agent' as const, agent, ledger: l?.agents[agent] })), ...cells.map((cell) => ({ kind: 'cell' as const, cell }))];
}

/** "RATE_LIMITED 2 · UNKNOWN 1", or "" when nothing failed since the last success. */
export const classCounts = (c: CellLedger): string =>
  Object.entries(c.counts)
    .filter(([, n]) => (n ?? 0) > 0)
    .map(([cls, n]) => `${cls} ${n}`)
    .join(' · ');

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
