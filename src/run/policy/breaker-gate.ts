import type { BreakerConfig } from '../../pipeline/config/types.js';
import type { AgentLedger } from '../journal/ledger.js';
import { breakerMessage } from '../supervisor/words.js';

// A half-open breaker admits exactly one probe, whoever asks
// (a review found "two cells of the same agent 17 ms apart under autopilot;
// 4 at once, then 2 at each later probe"). The ledger learns of a probe only when its launch
// event is journalled, after the backup, the checkpoint write and the spawn: every launch
// asked for in between saw "half-open, no probe in flight" and went too. So the probe is
// claimed here, in the same synchronous step as the check, and held by the cell until its
// attempt ends (its exit journalled, so the ledger then says closed or open again). Another
// process cannot launch meanwhile: the driver lock makes it read-only (supervisor-role.ts).

/** Probes claimed in this process and not yet ended: breaker name → cell key. */
export type ProbeClaims = Map<string, string>;

export type Gate =
  | { go: true }
  /** `wait`: the breaker will let a launch through later (cooldown, a probe's end); `ms` to look again. */
  | { go: false; wait: boolean; ms: number; reason: string };

/** The claim wait when another cell's probe runs: its end is an event, not a clock. */
export const PROBE_POLL_MS = 250;

/** May `key` launch through breaker `a` now? Claims the half-open probe for it when it may. */
export function passBreaker(a: AgentLedger | undefined, claims: ProbeClaims, key: string, cfg: BreakerConfig): Gate {
  if (!a) return { go: true };
  const v = a.view;
  if (v.state === 'closed') return { go: true };
  if (v.state === 'held') return { go: false, wait: false, ms: 0, reason: `${breakerMessage(a, cfg)}; release it to launch` };
  if (v.state === 'open') return { go: false, wait: true, ms: v.remainingMs + 20, reason: `${breakerMessage(a, cfg)}; reset it to launch now` };
  const holder = claims.get(a.agent);
  if (holder === key) return { go: true };
  if (holder !== undefined || a.breaker.probeInFlight) {
    return { go: false, wait: true, ms: PROBE_POLL_MS, reason: `breaker ${a.agent} half-open: its one probe is in flight${holder ? ` (${holder})` : ''}; wait for it, or reset the breaker` };
  }
  claims.set(a.agent, key);
  return { go: true };
}

/** The cell's attempt ended (or never started): its probes are free. */
export function releaseProbes(claims: ProbeClaims, key: string): void {
  for (const [agent, holder] of claims) if (holder === key) claims.delete(agent);
}
