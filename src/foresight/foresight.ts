import type { WorkspaceState } from '../types.js';
import { costForecast, type CostInput } from './forecast.js';
import { planOrder, schedule, type PlanAgent, type PlanCell, type Scheduled } from './schedule.js';
import { MIN_SAMPLES, statsOf } from './stats.js';
import { perHour } from './throughput.js';
import type { DurationLedger, Eta, Foresight, QuotaHold, ThinStep } from './types.js';

// Foresight's one entry (docs/foresight.md): the remaining plan of a workspace state, the
// journal's durations, the runs in flight, the agents' slots and breakers and one clock
// reading in; the ETAs, the cost forecast and the throughput out. Pure: the operator model
// (operator/model.ts) and `status` (cli/) call it with what they read.

export interface ForesightInput {
  ws: Pick<WorkspaceState, 'cells' | 'pipeline' | 'units' | 'currentBatch' | 'currentPhase'>;
  durations: DurationLedger;
  /** Cells in flight, by key "unit/step": running or queued since `startedAt`, or waiting until `retryAt`. */
  runs: readonly { key: string; state: 'running' | 'pending' | 'waiting'; startedAt: number | null; retryAt: number | null }[];
  /** Cells that wait for a human (escalated, held by the operator), by key. */
  human: ReadonlySet<string>;
  agents: ReadonlyMap<string, PlanAgent>;
  /** Accounts waiting for their quota's reset: their agents' cells wait as for an open breaker. */
  quota?: readonly QuotaHold[];
  /** Spend and budgets; null when nothing is known of them. */
  cost: CostInput | null;
  at: number;
}

const plural = (n: number, one: string): string => `${n} ${one}${n === 1 ? '' : 's'}`;

/** Why a part has no ETA, in words: a human first, then a held breaker, then thin data. */
function unknownWords(part: readonly Scheduled[], thin: ThinStep[]): string | null {
  const human = part.filter((s) => s.unknown?.kind === 'human' && s.cell.human).length;
  if (human) return `after ${plural(human, 'cell')} that need${human === 1 ? 's' : ''} you`;
  const held = part.find((s) => s.unknown?.kind === 'held')?.unknown;
  if (held?.kind === 'held') return `after breaker ${held.agent} is released`;
  if (part.some((s) => s.unknown?.kind === 'human')) return 'after cells that need you';
  if (thin.length) return `after ${thin[0].more} more ${thin[0].step} step${thin[0].more === 1 ? '' : 's'}`;
  return null;
}

function etaOf(id: number | null, part: readonly Scheduled[], samples: Readonly<Record<string, readonly number[]>>): Eta {
  const thinSteps = [...new Set(part.flatMap((s) => (s.unknown?.kind === 'thin' ? [s.unknown.step] : [])))];
  const thin = thinSteps.map((step) => ({ step, samples: samples[step]?.length ?? 0, more: MIN_SAMPLES - (samples[step]?.length ?? 0) }));
  const unknown = unknownWords(part, thin);
  const at = unknown ? null : part.reduce((m, s) => Math.max(m, s.end), 0);
  return { id, remaining: part.length, at: part.length === 0 ? null : at, thin, unknown };
}

/** The agents with their account's quota deadline folded in: a cell starts after both its breaker and its account (docs/quota.md). */
function withQuota(agents: ReadonlyMap<string, PlanAgent>, quota: readonly QuotaHold[], at: number): ReadonlyMap<string, PlanAgent> {
  if (!quota.some((q) => q.deadline > at)) return agents;
  const out = new Map(agents);
  for (const q of quota) {
    if (q.deadline <= at) continue;
    for (const name of q.agents) {
      const a = out.get(name) ?? { limit: null, deadline: null, held: false };
      out.set(name, { ...a, deadline: Math.max(a.deadline ?? 0, q.deadline) });
    }
  }
  return out;
}

export function foresightOf(i: ForesightInput): Foresight {
  const { ws, at } = i;
  // A state built by hand (tests, an empty scan) may have no pipeline: nothing to schedule.
  const pipeline = ws.pipeline ?? { steps: [], phases: [] };
  const stepOf = new Map(pipeline.steps.map((s) => [s.id, s]));
  const flying = new Map(i.runs.map((r) => [r.key, r]));
  const cells: PlanCell[] = [];
  for (const c of ws.cells ?? []) {
    if (c.status === 'done') continue;
    const key = `${c.unit}/${c.step}`;
    const st = stepOf.get(c.step);
    const r = flying.get(key);
    cells.push({
      key,
      unit: c.unit,
      step: c.step,
      batch: c.batch,
      phase: st?.phase ?? 0,
      agent: st?.agent ?? null,
      human: i.human.has(key) || (c.status === 'needs_human' && !r),
      startedAt: r && r.state !== 'waiting' ? (r.startedAt ?? at) : null,
      readyAt: r?.state === 'waiting' ? r.retryAt : null,
    });
  }
  const stats = new Map(statsOf(i.durations.steps).map((s) => [s.name, s]));
  const quota = [...(i.quota ?? [])];
  const plan = schedule(planOrder(cells, pipeline, ws.units ?? []), pipeline, stats, withQuota(i.agents, quota, at), at);
  const batch = ws.currentBatch === null || ws.currentBatch === undefined ? null : etaOf(ws.currentBatch, plan.filter((s) => s.cell.batch === ws.currentBatch), i.durations.steps);
  const phase = ws.currentPhase === null || ws.currentPhase === undefined ? null : etaOf(ws.currentPhase, plan.filter((s) => s.cell.phase === ws.currentPhase), i.durations.steps);
  const cost = i.cost ? costForecast(plan, i.cost) : { costToCompleteUsd: null, runsOut: null };
  return {
    at,
    quota,
    batch,
    phase,
    pipeline: etaOf(null, plan, i.durations.steps),
    needsYou: plan.filter((s) => s.cell.human).length,
    forecast: { ...cost, perHour: perHour(i.durations.done, at), durations: { steps: [...stats.values()], agents: statsOf(i.durations.agents), queue: statsOf(i.durations.queue ?? {}) } },
  };
}
