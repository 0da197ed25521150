import type { AgentLedger } from '../run/journal/ledger.js';
import { canLaunch } from '../run/policy/breaker.js';
import type { SupervisorSnapshot } from '../run/supervisor/types.js';
import type { OperatorBreaker, OperatorRun } from './types.js';

// Per agent: its breaker at the model's clock reading, its deadline stored once (the
// breaker's `until`), and its slots in use against its concurrency limit (`writer 1/2`).
// The ledger's own `view` was computed when the journal was folded: its `remainingMs` froze
// between two journal events (a Plan countdown stuck at "29 s left" while Health ticked).

export interface AgentsConfig {
  /** Every agent of checkroom.yaml with its concurrency limit (Health lists them before any launch). */
  concurrency: Readonly<Record<string, number | null>>;
}

function breakerOf(agent: string, ag: AgentLedger | undefined, used: number, limit: number | null, at: number, threshold: number): OperatorBreaker {
  const slots = { used, limit };
  if (!ag) return { agent, state: 'closed', deadline: null, trips: 0, consecutiveFailures: 0, threshold, openedBy: [], canLaunch: true, slots, seen: false };
  const b = ag.breaker;
  const open = b.status === 'open';
  const half = open && b.until !== null && at >= b.until;
  return {
    agent,
    state: b.status === 'held' ? 'held' : half ? 'half_open' : open ? 'open' : 'closed',
    deadline: open && !half ? b.until : null,
    trips: b.trips,
    consecutiveFailures: b.consecutiveFailures,
    threshold: ag.view.threshold,
    openedBy: b.openedBy,
    canLaunch: canLaunch(b, at),
    slots,
    seen: true,
  };
}

/** `snap`: a supervisor's snapshot, or what a scan read of the journal (cli/scan-journal.ts: its ledger, no limits). */
export function breakersOf(snap: (Pick<SupervisorSnapshot, 'ledger'> & Partial<Pick<SupervisorSnapshot, 'limits'>>) | null, runs: readonly OperatorRun[], cfg: AgentsConfig | null, at: number): OperatorBreaker[] {
  const ledger = snap?.ledger.agents ?? {};
  const names = [...new Set([...Object.keys(cfg?.concurrency ?? {}), ...Object.keys(ledger)])].sort();
  const used = new Map<string, number>();
  for (const r of runs) if (r.state !== 'waiting') used.set(r.agent, (used.get(r.agent) ?? 0) + 1);
  const threshold = snap?.limits?.breakerThreshold ?? 1;
  return names.map((n) => breakerOf(n, ledger[n], used.get(n) ?? 0, cfg?.concurrency[n] ?? null, at, threshold));
}
