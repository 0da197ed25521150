import type { PipelineDef } from '../types.js';
import type { DurationStat } from './types.js';
import { MIN_SAMPLES } from './stats.js';

// The remaining plan, scheduled (docs/foresight.md, What the ETA assumes): a list-scheduling
// simulation. Cells are taken in plan order (batch, phase, unit, step); each starts when the
// steps it depends on are estimated done, a barrier phase before it is done, its agent's
// breaker has reached its deadline and a slot of that agent's concurrency is free, and takes
// its step's median run time. Retries, new failures and a human's speed are not modelled: a
// cell that waits for a human has no estimate, and neither has anything after it.

/** A cell not done yet, as the simulation needs it. */
export interface PlanCell {
  key: string;
  unit: string;
  step: string;
  batch: number | null;
  phase: number;
  agent: string | null;
  /** The cell waits for a human (escalated, held, needs a human): it has no estimate. */
  human: boolean;
  /** In flight: running since (epoch ms), or waiting for its next attempt until (epoch ms). */
  startedAt: number | null;
  readyAt: number | null;
}

/** An agent's slots and breaker at the clock reading. */
export interface PlanAgent {
  /** Concurrency limit; null: no limit known (every cell of it may start at once). */
  limit: number | null;
  /** An open breaker's or its account's quota deadline (epoch ms), the later of both; null when it may launch. */
  deadline: number | null;
  /** A held breaker waits for the operator: no deadline to count on. */
  held: boolean;
}

/** Why a cell has no estimate: too few samples of its step, a human, a held breaker, or none. */
export type Unknown = { kind: 'thin'; step: string } | { kind: 'human' } | { kind: 'held'; agent: string } | null;

export interface Scheduled {
  cell: PlanCell;
  start: number;
  end: number;
  unknown: Unknown;
}

const stepIndex = (p: Pick<PipelineDef, 'steps'>): Map<string, number> => new Map(p.steps.map((s, i) => [s.id, i]));

/** Plan order: batch (unbatched last), phase, unit (in the workspace's order), step (the pipeline's). */
export function planOrder(cells: readonly PlanCell[], pipeline: Pick<PipelineDef, 'steps'>, units: readonly string[]): PlanCell[] {
  const si = stepIndex(pipeline);
  const ui = new Map(units.map((u, i) => [u, i]));
  const b = (c: PlanCell) => c.batch ?? Number.MAX_SAFE_INTEGER;
  return [...cells].sort((x, y) => b(x) - b(y) || x.phase - y.phase || (ui.get(x.unit) ?? 0) - (ui.get(y.unit) ?? 0) || (si.get(x.step) ?? 0) - (si.get(y.step) ?? 0));
}

/** The slot of `slots` where a cell ready at `ready` starts first; among equals the one freed last (keeps early slots for others). */
function pickSlot(slots: number[], ready: number): number {
  let best = 0;
  for (let i = 1; i < slots.length; i++) {
    const s = Math.max(ready, slots[i]);
    const b = Math.max(ready, slots[best]);
    if (s < b || (s === b && slots[i] > slots[best])) best = i;
  }
  return best;
}

/**
 * Every remaining cell's estimated start and end, in plan order. `stats`: per step;
 * `fallback`: per agent, for the order of cells whose step is thin (their end is not trusted).
 */
export function schedule(
  ordered: readonly PlanCell[],
  pipeline: Pick<PipelineDef, 'steps' | 'phases'>,
  stats: ReadonlyMap<string, DurationStat>,
  agents: ReadonlyMap<string, PlanAgent>,
  at: number,
): Scheduled[] {
  const deps = new Map(pipeline.steps.map((s) => [s.id, s.dependsOn]));
  const barrier = new Set(pipeline.phases.filter((p) => p.barrier).map((p) => p.id));
  const done = new Map<string, Scheduled>();
  const slots = new Map<string, number[]>();
  /** Per barrier phase: when its last remaining cell is estimated done, and whether that is known. */
  const phaseEnd = new Map<number, { end: number; unknown: Unknown }>();
  const out: Scheduled[] = [];
  const place = (s: Scheduled): void => {
    out.push(s);
    done.set(s.cell.key, s);
    if (barrier.has(s.cell.phase)) {
      const p = phaseEnd.get(s.cell.phase);
      phaseEnd.set(s.cell.phase, { end: Math.max(p?.end ?? at, s.end), unknown: p?.unknown ?? s.unknown });
    }
  };
  // Runs in flight hold their slots first.
  const flying = ordered.filter((c) => c.startedAt !== null);
  for (const c of flying) {
    const st = stats.get(c.step);
    const thin = !st || st.count < MIN_SAMPLES;
    const end = Math.max(at, c.startedAt! + (st?.medianMs ?? 0));
    if (c.agent) slots.set(c.agent, [...(slots.get(c.agent) ?? []), end]);
    place({ cell: c, start: c.startedAt!, end, unknown: thin ? { kind: 'thin', step: c.step } : null });
  }
  for (const c of ordered) {
    if (c.startedAt !== null) continue;
    let ready = Math.max(at, c.readyAt ?? at);
    let unknown: Unknown = null;
    const inherit = (u: Unknown) => {
      if (!unknown && u) unknown = u;
    };
    for (const d of deps.get(c.step) ?? []) {
      const before = done.get(`${c.unit}/${d}`);
      if (!before) continue;
      ready = Math.max(ready, before.end);
      inherit(before.unknown);
    }
    for (const [id, p] of phaseEnd) {
      if (id >= c.phase) continue;
      ready = Math.max(ready, p.end);
      inherit(p.unknown);
    }
    const ag = c.agent ? agents.get(c.agent) : undefined;
    if (ag?.deadline) ready = Math.max(ready, ag.deadline);
    if (c.human) {
      // A human's time is not estimated, and the cell holds no agent's slot meanwhile.
      place({ cell: c, start: ready, end: ready, unknown: { kind: 'human' } });
      continue;
    }
    const st = stats.get(c.step);
    if (ag?.held) inherit({ kind: 'held', agent: c.agent! });
    if (!st || st.count < MIN_SAMPLES) inherit({ kind: 'thin', step: c.step });
    const run = st?.medianMs ?? 0;
    let start = ready;
    if (c.agent && ag?.limit) {
      const free = slots.get(c.agent) ?? [];
      while (free.length < ag.limit) free.push(at);
      slots.set(c.agent, free);
      const i = pickSlot(free, ready);
      start = Math.max(ready, free[i]);
      free[i] = start + run;
    }
    place({ cell: c, start, end: start + run, unknown });
  }
  return out;
}
