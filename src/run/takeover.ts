import type { Ledger } from './ledger.js';

// What an observer keeps when it takes over from a driver that went (issue 17 item 3): the
// driver's autopilot and the cells its operator cancelled. Before, the new driver started
// with autopilot off — a driver killed or cut off mid-pipeline stopped the pipeline. The
// journal says what the driver had: its last `autopilot` event (a driver that closed journals
// `off` with CLOSED_REASON, which says autopilot was on until then), and the CANCELLED exits
// of its session. Breaker holds and the redo queue are journaled and folded already.

/** The reason a closing driver journals when it turns autopilot off (supervisor-autopilot-loop.ts). */
export const CLOSED_REASON = 'checkroom closed';

/** The reason journaled when a new driver keeps the autopilot on: not the operator's answer to a pause (the failure count goes on). */
export const KEPT_REASON = 'kept on at the take-over: the driver that went had it on';

export interface DriverPilot {
  /** Autopilot was on when the driver went (and no global limit paused it). */
  on: boolean;
  /** Cells the driver's operator cancelled in its session: autopilot leaves them alone. */
  held: string[];
}

/** Read from the ledger as the driver left it (before the new session starts). */
export function driverPilot(l: Ledger): DriverPilot {
  const a = l.autopilot;
  const on = a !== null && (a.on || a.reason === CLOSED_REASON) && !l.paused;
  const since = l.sessionStartedAt ?? 0;
  const held = Object.values(l.cells)
    .filter((c) => c.state === 'idle' && c.lastClass === 'CANCELLED' && (c.attempts.at(-1)?.at ?? 0) >= since)
    .map((c) => c.key);
  return { on, held };
}
