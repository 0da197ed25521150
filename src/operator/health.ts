import type { SupervisorSnapshot } from '../run/supervisor/types.js';
import type { AutopilotState, HealthRow, OperatorBreaker, OperatorCell } from './types.js';

// Health's rows by urgency (alphabetical put the open breaker and the
// escalated cell in the middle): escalated cells, open breakers, failing, running, idle.
// Within a tier, agents before cells, then by name.

const cellTier = (c: OperatorCell): number => {
  if (c.run === 'escalated') return 0;
  if (c.run === 'retrying' || c.run === 'waiting' || c.run === 'held') return 2;
  if (c.run === 'running' || c.run === 'pending') return 3;
  // Idle after failures (the last attempt failed and nothing is scheduled) is failing too.
  const last = c.ledger?.attempts[c.ledger.attempts.length - 1];
  if (c.run === 'idle' && last && last.class !== 'SUCCESS' && last.class !== 'CANCELLED') return 2;
  return 4;
};

const breakerTier = (b: OperatorBreaker): number => (b.state === 'closed' ? (b.consecutiveFailures > 0 ? 2 : b.slots.used > 0 ? 3 : 4) : 1);

const byName = (a: string, b: string): number => a.localeCompare(b, 'en', { numeric: true });

export function healthOf(breakers: readonly OperatorBreaker[], cells: ReadonlyMap<string, OperatorCell>): HealthRow[] {
  const rows: { tier: number; agent: boolean; name: string; row: HealthRow }[] = [
    ...breakers.map((b) => ({ tier: breakerTier(b), agent: true, name: b.agent, row: { kind: 'agent' as const, agent: b.agent, breaker: b } })),
    ...[...cells.values()].map((c) => ({ tier: cellTier(c), agent: false, name: `${c.unit}\u0000${c.step}`, row: { kind: 'cell' as const, cell: c } })),
  ];
  rows.sort((a, b) => a.tier - b.tier || Number(b.agent) - Number(a.agent) || byName(a.name, b.name));
  return rows.map((r) => r.row);
}

/**
 * On, paused (why) or off, as every surface says it. Paused wins over on: a pilot that is on
 * while a global limit stops it launches nothing (after `a` the status line said
 * "autopilot on: launching" while the header said PAUSED). A read-only observer's own pilot is
 * always off: it reads the driver's from the journal ("autopilot off" on the observer
 * while the driver had it on).
 */
export function autopilotOf(snap: Pick<SupervisorSnapshot, 'role' | 'autopilot' | 'ledger'> | null): AutopilotState {
  if (!snap) return { state: 'off', reason: null };
  const a = snap.autopilot;
  if (a.paused) return { state: 'paused', reason: a.reason || snap.ledger.pausedReason || 'a global limit' };
  const driverOn = snap.role === 'readonly' ? (snap.ledger.autopilot?.on ?? false) : a.on;
  if (driverOn) return { state: 'on' };
  return { state: 'off', reason: snap.role === 'readonly' ? (snap.ledger.autopilot?.reason ?? null) : a.reason || null };
}
