import type { CellStatus, Claim, Lang, WorkspaceState } from '../types.js';
import { cellKey } from '../types.js';
import type { CheckpointDoc } from './types.js';
import { buildCheckpointDoc } from './render.js';
import { formatMinute } from '../text/local-time.js';

// checkpoint.md rebuilt from the reconciled state (scenario 4, and the Sources view's
// rewrite): same language and layout as the file it replaces (the workspace's for a new one);
// the matrix holds the per-chapter steps, as in the source document.

export const CLAIM_OF: Record<CellStatus, Claim> = {
  done: 'done',
  partial: 'in_progress',
  running: 'in_progress',
  failed: 'failed',
  needs_human: 'needs_human',
  not_started: 'not_started',
};

/** unit/step → the claim the disk proves. A file checkroom cannot read proves nothing either way: the old claim stays. */
export const stateClaims = (state: WorkspaceState): Map<string, Claim> =>
  new Map(state.cells.map((c) => [cellKey(c.unit, c.step), c.disk === 'unreadable' && c.checkpoint !== null ? c.checkpoint : CLAIM_OF[c.status]]));

/** `lang`: the workspace's language (lang.ts workspaceLang) for a checkpoint with no old file. */
export function checkpointFromState(state: WorkspaceState, prev: CheckpointDoc | null, now = new Date(), lang: Lang = 'en'): CheckpointDoc {
  const batchedPhase = Math.min(...state.pipeline.steps.map((s) => s.phase));
  const columns = prev?.batches[0]?.columns.length
    ? prev.batches[0].columns
    : state.pipeline.steps.filter((s) => s.phase === batchedPhase).map((s) => s.id);
  const claim = stateClaims(state);
  // Columns checkroom does not know keep their values, by unit, and their place.
  const oldExtra = new Map((prev?.batches ?? []).flatMap((b) => b.rows.filter((r) => r.extra).map((r) => [r.unit, r.extra!] as const)));
  const extraOf = new Map((prev?.batches ?? []).map((b) => [b.id, b.extra ?? []]));
  const rowOf = (unit: string) => ({
    unit,
    claims: Object.fromEntries(columns.map((step) => [step, claim.get(cellKey(unit, step)) ?? 'not_started'])),
    ...(oldExtra.has(unit) ? { extra: { ...oldExtra.get(unit)! } } : {}),
  });
  const batches = state.batches
    .filter((b) => b.id !== null)
    .map((b) => ({
      id: b.id as number | null,
      status: b.status === 'in_progress' || b.status === 'done' ? null : b.status,
      rows: b.units.map(rowOf),
      extra: extraOf.get(b.id) ?? [],
    }));
  // Units of no batch (disk-only chapters, or a file with no batches) stay in no batch: a
  // table under no heading, which parse reads back as no batch, never as an invented
  // `### Batch N` or "batch 0". Its old rows keep their order.
  const known = new Set(batches.flatMap((b) => b.rows.map((r) => r.unit)));
  const oldOrder = new Map((prev?.batches.find((b) => b.id === null)?.rows ?? []).map((r, i) => [r.unit, i]));
  const rank = (u: string): number => oldOrder.get(u) ?? oldOrder.size;
  const rest = state.units.filter((u) => !known.has(u)).sort((a, b) => rank(a) - rank(b));
  if (rest.length) batches.unshift({ id: null, status: null, rows: rest.map(rowOf), extra: extraOf.get(null) ?? [] });
  const doc = buildCheckpointDoc({
    project: prev?.project ?? state.name,
    lang: prev?.lang ?? lang,
    lastUpdate: formatMinute(now),
    // Where the work stopped, so a rebuilt checkpoint agrees with the header
    // instead of naming the first batch with a lost marker.
    currentPhase: state.stoppedAt ? state.stoppedAt.phase : state.currentPhase,
    currentBatch: state.stoppedAt ? state.stoppedAt.batch : state.currentBatch,
    phases: state.phases.map((p) => ({ id: p.id, name: prev?.phases.find((q) => q.id === p.id)?.name ?? p.name, status: p.status })),
    batches,
    columns,
    layout: prev?.layout,
  });
  return doc;
}
