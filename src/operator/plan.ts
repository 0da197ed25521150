import type { NextStep } from '../types.js';
import type { OperatorStep } from './types.js';

// The plan, one entry per cell (Plan listed ch01 memory twice, `human_review` and
// `rebuild_memory`). The planner may say two things of one cell; the operator acts once, so
// the most urgent entry stays (lowest priority number, then the planner's order) and the
// others' action and reason go into its `also`, shown in its detail. Entries without a cell
// (a phase to complete) stay as they are. Kept per `next` array: the live model publishes a
// new one only when a unit's plan changed.

let last: { next: readonly NextStep[]; plan: OperatorStep[] } | null = null;

export function planOf(next: readonly NextStep[]): OperatorStep[] {
  if (last?.next === next) return last.plan;
  const first = new Map<string, number>();
  let dup = false;
  for (let i = 0; i < next.length && !dup; i++) {
    const n = next[i];
    if (n.unit === null || n.step === null) continue;
    const k = `${n.unit}/${n.step}`;
    if (first.has(k)) dup = true;
    else first.set(k, i);
  }
  // The common case has no duplicate: the same array, no copy (the socket keeps blocks by identity).
  const plan = dup ? dedupe(next) : (next as OperatorStep[]);
  last = { next, plan };
  return plan;
}

function dedupe(next: readonly NextStep[]): OperatorStep[] {
  const byCell = new Map<string, NextStep[]>();
  for (const n of next) if (n.unit !== null && n.step !== null) byCell.set(`${n.unit}/${n.step}`, [...(byCell.get(`${n.unit}/${n.step}`) ?? []), n]);
  const out: OperatorStep[] = [];
  const kept = new Set<string>();
  for (const n of next) {
    if (n.unit === null || n.step === null) {
      out.push(n);
      continue;
    }
    const k = `${n.unit}/${n.step}`;
    if (kept.has(k)) continue;
    const all = byCell.get(k)!;
    if (all.length === 1) {
      out.push(n);
      continue;
    }
    // The most urgent: the lowest priority, then the first the planner gave.
    const best = all.reduce((a, b) => (b.priority < a.priority ? b : a));
    if (best !== n) continue;
    kept.add(k);
    out.push({ ...best, blocks: Math.max(...all.map((x) => x.blocks)), also: all.filter((x) => x !== best).map((x) => ({ action: x.action, reason: x.reason })) });
  }
  return out;
}
