import type { Limits } from '../pipeline/config/types.js';
import { budgetStopOf } from '../run/policy/budget.js';
import type { Ledger } from '../run/journal/ledger.js';
import type { SupervisorEvent } from '../run/supervisor/types.js';
import type { BatchProgress, PhaseProgress } from '../types.js';
import type { Alarm, AlarmEvent } from './types.js';

// Which supervisor events raise an alarm, and the alarm's identity (docs/notify.md, Events).
// Pure: an event, the ledger right after it and one clock reading in, an alarm or null out.
// The key is built from journal facts (the escalated attempt's time, the pause's line), so
// the same fact gives the same key in this session and after a restart: dedupe is by key.

const blank = { unit: null, step: null, class: null, agent: null, batch: null, phase: null };

const alarm = (event: AlarmEvent, key: string, at: number, reason: string, more: Partial<Alarm> = {}): Alarm => ({ ...blank, event, key: `${event}:${key}`, at, reason, ...more });

/** The alarm a supervisor event raises, or null. `limits`: the budgets, to tell a spent budget from another pause. */
export function alarmOf(e: SupervisorEvent, l: Ledger, limits: Limits, now: number): Alarm | null {
  if (e.type === 'failed' && e.escalated) {
    const c = l.cells[`${e.unit}/${e.step}`];
    const last = c?.attempts.at(-1);
    const at = last?.at ?? now;
    return alarm('escalation', `${e.unit}/${e.step}@${at}`, at, e.reason, { unit: e.unit, step: e.step, class: e.class, agent: c?.agent ?? null });
  }
  if (e.type === 'autopilot' && e.paused) {
    // The pause's own journal line when it wrote one (it does when autopilot was on).
    const at = l.autopilot && !l.autopilot.on ? l.autopilot.at : now;
    const spent = budgetStopOf(l, limits) !== null;
    return alarm(spent ? 'budget_spent' : 'autopilot_paused', String(at), at, e.reason);
  }
  // The last run ended while draining (docs/drain.md): keyed by the drain's start, once per drain.
  if (e.type === 'drained') return alarm('drained', String(e.since), l.pause.drain?.drainedAt ?? now, 'drained: nothing runs; undrain when ready');
  return null;
}

/** A breaker not closed since `since` for at least `afterMs` (docs/notify.md, breaker_open_long). */
export const breakerAlarm = (agent: string, since: number, now: number, afterMs: number): Alarm | null =>
  now - since >= afterMs ? alarm('breaker_open_long', `${agent}@${since}`, now, `breaker ${agent} not closed for ${Math.round((now - since) / 60_000)} min`, { agent }) : null;

/** The batch and phase (the step's: `phase`) a finished cell completed, read from a fresh scan: each is raised once by its key. */
export function progressAlarms(unit: string, phase: number | null, batches: readonly BatchProgress[], phases: readonly PhaseProgress[], now: number): Alarm[] {
  const out: Alarm[] = [];
  const b = batches.find((x) => x.id !== null && x.units.includes(unit));
  if (b && b.status === 'done') out.push(alarm('batch_complete', String(b.id), now, `Batch ${b.id} complete: ${b.done}/${b.total} done`, { batch: b.id }));
  const p = phases.find((x) => x.id === phase);
  if (p && p.status === 'done') out.push(alarm('phase_complete', String(p.id), now, `Phase ${p.id} ${p.name} complete`, { phase: p.id }));
  return out;
}
