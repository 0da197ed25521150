import type { Ledger } from '../run/journal/ledger.js';

// What the "needs you" banner and the tab title count (docs/notify.md, Banner): escalated
// cells the operator has not acknowledged. An acknowledgement (`A`) is a journal decision,
// so it survives a restart; an escalation after it — a new cell, or the same cell escalated
// again after a reset — brings the banner back. One model: the header, the title and the
// bell read this, never a count of their own.

export interface NeedsYou {
  count: number;
  /** The unacknowledged cells, `unit/step`, in the ledger's order. */
  cells: string[];
  /** When the operator last acknowledged, or null. */
  ackAt: number | null;
}

export const NOBODY: NeedsYou = { count: 0, cells: [], ackAt: null };

// One answer per ledger object: the header, the title and the store ask on every change.
const seen = new WeakMap<Ledger, NeedsYou>();

export function needsYouOf(l: Ledger | null | undefined): NeedsYou {
  if (!l) return NOBODY;
  const hit = seen.get(l);
  if (hit) return hit;
  const n = count(l);
  seen.set(l, n);
  return n;
}

function count(l: Ledger): NeedsYou {
  let ackAt: number | null = null;
  for (const d of l.decisions) if (d.kind === 'ack_alarms') ackAt = Math.max(ackAt ?? d.at, d.at);
  const cells: string[] = [];
  for (const c of Object.values(l.cells)) {
    if (!c.escalation || c.state !== 'needs_human') continue;
    // An escalation with no attempt on record is taken as new: better a banner too many than one missed.
    const at = c.attempts.at(-1)?.at ?? Infinity;
    if (ackAt === null || at > ackAt) cells.push(c.key);
  }
  return cells.length === 0 ? { ...NOBODY, ackAt } : { count: cells.length, cells, ackAt };
}

/** "2 need you", "1 needs you". */
export const needsYouWords = (n: number): string => `${n} ${n === 1 ? 'needs' : 'need'} you`;
