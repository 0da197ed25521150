import type { Ledger } from '../journal/ledger.js';

// What an observer keeps when it takes over from a driver that went
// (docs/decisions/one-driver-many-observers.md): the
// driver's autopilot. Before, the new driver started with autopilot off — a driver killed or
// cut off mid-pipeline stopped the pipeline. The journal says what the driver had: its last
// `autopilot` event (a driver that closed journals `off` with CLOSED_REASON, which says
// autopilot was on until then). The operator's holds (cancels), breaker holds and the redo
// queue are journaled and folded into the ledger already, so they hold here as they did there.

/** The reason a closing driver journals when it turns autopilot off (supervisor-autopilot-loop.ts). */
export const CLOSED_REASON = 'checkroom closed';

/** The reason journaled when a new driver keeps the autopilot on: not the operator's answer to a pause (the failure count goes on). */
export const KEPT_REASON = 'kept on at the take-over: the driver that went had it on';

export interface DriverPilot {
  /** Autopilot was on when the driver went (and no global limit paused it). */
  on: boolean;
}

/** Read from the ledger as the driver left it (before the new session starts). */
export function driverPilot(l: Ledger): DriverPilot {
  const a = l.autopilot;
  const on = a !== null && (a.on || a.reason === CLOSED_REASON) && !l.paused;
  return { on };
}
