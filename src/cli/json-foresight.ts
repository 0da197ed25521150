import type { Eta, Foresight, QuotaHold } from '../foresight/types.js';
import { HOUR_MS } from '../foresight/throughput.js';
import { etaLine, forecastLine } from '../foresight/words.js';

// `eta`, `forecast` and `quota` in `status --json` (docs/status-json.md, docs/foresight.md,
// docs/quota.md): the operator model's foresight, as the Progress view and `status` text say
// it, and the quota waits its ETAs count, as Health counts them down. All three are null in a
// document made without one. Fields are only added (json.ts). An account is its id and label
// (a hash of the key's identity, run/quota/account.ts), never the key.

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

const etaJson = (e: Eta | null, at: number) =>
  e && {
    id: e.id,
    remaining: e.remaining,
    eta: iso(e.at),
    in_ms: e.at === null ? null : Math.max(0, e.at - at),
    thin: e.thin.map((t) => ({ step: t.step, samples: t.samples, more: t.more })),
    unknown: e.unknown,
  };

const statJson = (key: 'step' | 'agent') => (s: { name: string; count: number; medianMs: number; p90Ms: number }) => ({ [key]: s.name, count: s.count, median_ms: s.medianMs, p90_ms: s.p90Ms });

const quotaJson = (q: QuotaHold, at: number) => ({
  account: q.account,
  label: q.label,
  until: new Date(q.deadline).toISOString(),
  in_ms: Math.max(0, q.deadline - at),
  agents: q.agents,
  cells: q.waiting.map((c) => ({ unit: c.unit, step: c.step })),
});

export function foresightJson(f: Foresight | null) {
  if (!f) return { eta: null, forecast: null, quota: null };
  const c = f.forecast;
  return {
    eta: {
      at: iso(f.at),
      batch: etaJson(f.batch, f.at),
      phase: etaJson(f.phase, f.at),
      pipeline: etaJson(f.pipeline, f.at),
      needs_you: f.needsYou,
      text: etaLine(f),
    },
    forecast: {
      cost_to_complete_usd: c.costToCompleteUsd === null ? null : Math.round(c.costToCompleteUsd * 1e6) / 1e6,
      runs_out: c.runsOut && { budget: c.runsOut.key, what: c.runsOut.what, unit: c.runsOut.unit, step: c.runsOut.step },
      text: forecastLine(f),
      hour_ms: HOUR_MS,
      done_per_hour: c.perHour,
      durations: {
        steps: c.durations.steps.map(statJson('step')),
        agents: c.durations.agents.map(statJson('agent')),
        // Per agent, cluster jobs' waits in the scheduler's queue, apart from run time (docs/scale-out.md, Queue time).
        queue_wait: (c.durations.queue ?? []).map(statJson('agent')),
      },
    },
    // Accounts waiting for their quota's reset, soonest first; `in_ms` from the forecast's clock (`eta.at`).
    quota: f.quota.map((q) => quotaJson(q, f.at)),
  };
}
