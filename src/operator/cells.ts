import type { Limits } from '../pipeline/config/types.js';
import type { CellLedger } from '../run/journal/ledger.js';
import type { CellOverride } from '../run/journal/triage-ledger.js';
import { decideNext } from '../run/policy/policy.js';
import type { SupervisorSnapshot } from '../run/supervisor/types.js';
import type { OperatorCell, OperatorEscalation, OperatorRun } from './types.js';

// A cell's run facts, from the journal's fold and the runs in flight: O(cells with runs or
// attempts), never over every cell of the workspace.

/** "attempt 2 of 3" for the attempt after the cell's last failure, when the caps allow one. */
export function nextAttemptOf(cell: CellLedger | null, limits: Pick<Limits, 'caps' | 'backoffBaseMs' | 'backoffMaxMs'> | null): string | null {
  if (!cell || !limits || cell.attempts.length === 0) return null;
  const next = decideNext(cell.attempts, limits, () => 0.5);
  return next.kind === 'retry' ? `attempt ${next.attempt} of ${next.maxAttempts}` : null;
}

const escalationOf = (c: CellLedger): OperatorEscalation | null =>
  c.state === 'needs_human' && c.escalation ? { key: c.key, unit: c.unit, step: c.step, class: c.escalation.class, reason: c.escalation.reason } : null;

function runStateOf(c: CellLedger | null, r: OperatorRun | undefined): OperatorCell['run'] {
  if (r) return r.state === 'waiting' ? (r.retryAt !== null ? 'retrying' : 'waiting') : r.state;
  if (!c) return 'idle';
  if (c.state === 'needs_human') return 'escalated';
  if (c.hold) return 'held';
  if (c.state === 'done') return 'done';
  // Retrying in the journal with no flight: an observer, between the driver's events.
  if (c.state === 'retrying') return 'retrying';
  return 'idle';
}

/** A redo's fork in words (docs/redo.md, Fork from here). */
const forkWords = (o: CellOverride | undefined): string | null =>
  o ? [o.agent !== undefined ? `agent ${o.agent}` : '', o.prompt !== undefined ? `prompt ${o.prompt}` : ''].filter(Boolean).join(', ') : null;

function cellOf(key: string, c: CellLedger | null, r: OperatorRun | undefined, limits: Limits | null, fork: CellOverride | undefined): OperatorCell {
  const run = runStateOf(c, r);
  // An escalated, held or finished cell has no next attempt (Health showed
  // "ch04 memory escalated · next attempt 2 of 4").
  const next = run === 'escalated' || run === 'held' || run === 'done' ? null : nextAttemptOf(c, limits);
  return {
    key,
    unit: c?.unit ?? r!.unit,
    step: c?.step ?? r!.step,
    agent: c?.agent ?? r?.agent ?? null,
    run,
    attempts: c?.attempts.length ?? 0,
    nextAttempt: next,
    retryAt: r?.retryAt ?? (run === 'retrying' ? (c?.nextRetryAt ?? null) : null),
    escalation: c ? escalationOf(c) : null,
    hold: c?.hold?.why ?? null,
    reason: c?.reason ?? null,
    ledger: c,
    fork: forkWords(fork),
    jobs: c?.jobs ?? [],
  };
}

/** Cells the journal or the supervisor speaks of: with attempts, escalated, retrying, running or in flight. */
export function cellsOf(snap: SupervisorSnapshot | null, runs: readonly OperatorRun[], limits: Limits | null): Map<string, OperatorCell> {
  const out = new Map<string, OperatorCell>();
  const byKey = new Map(runs.map((r) => [r.key, r]));
  const forks = snap?.ledger.triage.overrides ?? {};
  for (const c of Object.values(snap?.ledger.cells ?? {})) {
    if (!(c.attempts.length > 0 || c.state === 'needs_human' || c.state === 'retrying' || c.state === 'running' || byKey.has(c.key) || forks[c.key])) continue;
    out.set(c.key, cellOf(c.key, c, byKey.get(c.key), limits, forks[c.key]));
  }
  for (const r of runs) if (!out.has(r.key)) out.set(r.key, cellOf(r.key, null, r, limits, forks[r.key]));
  return out;
}
