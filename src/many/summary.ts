import { z } from 'zod';
import { sanitizeLine } from '../text/sanitize.js';

// One workspace of the overview, as a line (docs/many.md): derived from its `status --json`
// document only — a local one's and a remote one's alike — so the counts are the ones
// `status --json` says (the operator model's, src/operator/model.ts `scanCounts`), never
// counted again here. A remote's document is untrusted: schema-checked, its text sanitized.

const count = z.number().int().nonnegative().catch(0);
const text = (max: number) => z.string().transform((s) => sanitizeLine(s).slice(0, max));

/** The part of `status --json` (docs/status-json.md) the overview reads; everything else is ignored. */
export const StatusDocSchema = z.object({
  version: z.literal(1),
  workspace: text(400),
  name: text(200),
  pipeline: text(80).nullable().catch(null),
  currentPhase: z.number().nullable().catch(null),
  currentBatch: z.number().nullable().catch(null),
  counts: z.object({ total: count, done: count, partial: count, failed: count, needsHuman: count, running: count, pending: count, waiting: count }),
  regressions: z.array(z.unknown()).catch([]),
  discrepancies: z.array(z.unknown()).catch([]),
  cost_usd: z.number().nonnegative().nullable().catch(null),
  eta: z
    .object({ pipeline: z.object({ eta: z.string().nullable().catch(null) }).nullable().catch(null), needs_you: count, text: text(200).catch('') })
    .nullable()
    .optional()
    .catch(null),
  forecast: z.object({ runs_out: z.object({ budget: text(60) }).nullable().catch(null) }).nullable().optional().catch(null),
  quota: z.array(z.unknown()).nullable().optional().catch(null),
});

export type StatusDoc = z.infer<typeof StatusDocSchema>;

export type Urgency = 'needs-you' | 'unreachable' | 'failing' | 'running' | 'idle' | 'done';
/** The overview's order: what needs the operator first (docs/many.md, Urgency). */
export const URGENCY_ORDER: readonly Urgency[] = ['needs-you', 'unreachable', 'failing', 'running', 'idle', 'done'];

export interface WorkspaceSummary {
  name: string;
  pipeline: string | null;
  phase: number | null;
  batch: number | null;
  total: number;
  done: number;
  partial: number;
  failed: number;
  needsYou: number;
  /** Running, plus queued cluster jobs and cells waiting for their next attempt: in flight. */
  running: number;
  spendUsd: number | null;
  /** The pipeline's ETA (ISO time), when foresight knows one. */
  eta: string | null;
  alarms: string[];
  urgency: Urgency;
}

/** A document as the overview trusts it, or a message saying what is wrong with it. */
export function parseStatusDoc(raw: string): { doc: StatusDoc } | { error: string } {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return { error: 'the answer is not JSON (is the remote checkroom a version with `status --json`?)' };
  }
  const r = StatusDocSchema.safeParse(json);
  if (!r.success) {
    const i = r.error.issues[0];
    return { error: `the answer is not a status --json document (${sanitizeLine(i?.path.join('.') || 'document')}: ${sanitizeLine(i?.message ?? 'invalid')})` };
  }
  return { doc: r.data };
}

const plural = (n: number, one: string): string => `${n} ${one}${n === 1 ? '' : 's'}`;

export function summaryOf(doc: StatusDoc): WorkspaceSummary {
  const c = doc.counts;
  // Foresight's count when the document has one (escalated and held cells too); else the disk's.
  const needsYou = doc.eta ? Math.max(doc.eta.needs_you, c.needsHuman) : c.needsHuman;
  const running = c.running + c.pending + c.waiting;
  const alarms: string[] = [];
  if (doc.regressions.length) alarms.push(plural(doc.regressions.length, 'regression'));
  if (doc.forecast?.runs_out) alarms.push(`budget ${doc.forecast.runs_out.budget} runs out`);
  if (doc.quota?.length) alarms.push(plural(doc.quota.length, 'quota wait'));
  if (doc.discrepancies.length) alarms.push(plural(doc.discrepancies.length, 'discrepanc').replace(/cs$/, 'cies').replace(/c$/, 'cy'));
  const urgency: Urgency =
    needsYou > 0 ? 'needs-you' : c.failed > 0 ? 'failing' : running > 0 ? 'running' : c.total > 0 && c.done === c.total ? 'done' : 'idle';
  return {
    name: doc.name,
    pipeline: doc.pipeline,
    phase: doc.currentPhase,
    batch: doc.currentBatch,
    total: c.total,
    done: c.done,
    partial: c.partial,
    failed: c.failed,
    needsYou,
    running,
    spendUsd: doc.cost_usd,
    eta: doc.eta?.pipeline?.eta ?? null,
    alarms,
    urgency,
  };
}
