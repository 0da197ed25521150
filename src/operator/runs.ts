import type { SupervisorSnapshot } from '../run/supervisor/types.js';
import { cellKey } from '../types.js';
import type { OperatorRun } from './types.js';

// Cells in flight, from the supervisor's snapshot (O(runs)): running processes and jobs, then
// cells waiting for their next attempt or for a breaker. One row per cell: an observer's own
// and the driver's runs are one list, so a cell is never counted twice (a read-only
// observer showed "2 running" while the driver showed 1).

const byKey = (a: { unit: string; step: string }, b: { unit: string; step: string }): number =>
  a.unit.localeCompare(b.unit, 'en', { numeric: true }) || a.step.localeCompare(b.step);

/** The breaker a waiting cell waits for, from the supervisor's words ("waiting for breaker writer (open, …)"). */
const breakerOf = (reason: string, agents: readonly string[]): string | undefined => {
  const m = /^waiting for breaker (.+?)(?: \(|'s probe)/.exec(reason);
  return m && agents.includes(m[1]) ? m[1] : undefined;
};

/** `snap`: a supervisor's snapshot, or what a scan read of the journal (cli/scan-journal.ts: the same runs, waits and ledger). */
export function runsOf(snap: Pick<SupervisorSnapshot, 'runs' | 'waiting' | 'ledger'> | null): OperatorRun[] {
  if (!snap) return [];
  const out: OperatorRun[] = [];
  const seen = new Set<string>();
  for (const r of snap.runs) {
    const key = cellKey(r.unit, r.step);
    if (seen.has(key)) continue;
    seen.add(key);
    // A cluster job the scheduler still queues (or a controller not heard from) is pending: its
    // handle says why while the job does not run (executors/job-handle.ts clears it once it does).
    const pending = !!r.job && !!r.why;
    out.push({
      key,
      unit: r.unit,
      step: r.step,
      agent: r.agent,
      state: pending ? 'pending' : 'running',
      runId: r.runId,
      pid: r.pid,
      attempt: r.attempt,
      startedAt: r.startedAt,
      retryAt: null,
      // What the scheduler says of a queued job ("waiting: Resources").
      reason: r.why ?? '',
      logPath: r.logPath,
      ...(r.job ? { job: `${r.job.executor} job ${r.job.id}` } : {}),
      ...(r.activity ? { activity: r.activity } : {}),
      ...(r.origin ? { origin: r.origin } : {}),
    });
  }
  const agents = Object.keys(snap.ledger.agents);
  for (const w of snap.waiting) {
    const key = cellKey(w.unit, w.step);
    if (seen.has(key)) continue;
    seen.add(key);
    const cell = snap.ledger.cells[key];
    const breaker = w.retryAt === null ? breakerOf(w.reason, agents) : undefined;
    out.push({ key, unit: w.unit, step: w.step, agent: w.agent, state: 'waiting', runId: null, pid: null, attempt: cell?.attempts.length ?? 0, startedAt: null, retryAt: w.retryAt, reason: w.reason, logPath: null, ...(breaker ? { breaker } : {}) });
  }
  return out.sort(byKey);
}
