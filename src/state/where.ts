import type { WhereTally } from './where-cells.js';

// The recovery flow's "确定中断点" (docs/recovery.md, `checkroom recover`): where the work was when
// it was interrupted, by phase and batch. In order of trust: runs (a live run, or the journal's
// run cut by the interruption where the disk has nothing later), then checkpoint.md's "current
// phase / batch" when the disk agrees with it, then the disk: the furthest batch with work in
// progress. Cells whose proof was lost (regressions) are not work in progress: a Batch 1 with
// two lost markers does not pull "where it stopped" back from Batch 2. `currentBatch` (the
// first batch not done) stays as it was: scripts read it in `status --json`.

export type StopSource = 'runs' | 'checkpoint' | 'disk';

export interface StoppedAt {
  /** null: every phase is done. */
  phase: number | null;
  /** null: the phase is no batched one, or every batch is done. */
  batch: number | null;
  from: StopSource;
  /** What checkpoint.md's header claims; absent without a checkpoint. */
  checkpointSays?: { phase: number | null; batch: number | null };
  /** Set when the checkpoint's claim is not where the work stopped: what it says and what the disk or the runs say. */
  disagreement?: string;
}

/** A phase's or a batch's tally, with its id, in pipeline order. */
export interface WhereRow extends WhereTally {
  id: number;
}

export interface StopInput {
  phases: readonly WhereRow[];
  /** The numbered batches in order (units of no batch are no batch). */
  batches: readonly WhereRow[];
  /** The phase batches order (the per-unit writing). */
  batchedPhase: number;
  /** checkpoint.md's header; null when there is no checkpoint. */
  claim: { phase: number | null; batch: number | null } | null;
}

// A row with nothing to do counts as complete: it is never where work stopped.
const complete = (r: WhereRow): boolean => r.total === 0 || r.done + r.regress >= r.total;
const inProgress = (r: WhereRow): boolean => !complete(r) && (r.active > 0 || r.done > 0);

function lastIndex(rows: readonly WhereRow[], test: (r: WhereRow) => boolean): number {
  for (let i = rows.length - 1; i >= 0; i--) if (test(rows[i])) return i;
  return -1;
}

/** What the disk alone says: the furthest row with work in progress; between two rows, the next to start; -1 when all is done. */
function diskIndex(rows: readonly WhereRow[]): number {
  const active = lastIndex(rows, (r) => r.active > 0);
  if (active >= 0) return active;
  const started = lastIndex(rows, inProgress);
  if (started >= 0) return started;
  const last = lastIndex(rows, (r) => r.total > 0 && complete(r));
  const next = rows.findIndex((r, j) => j > last && !complete(r));
  if (next >= 0) return next;
  // Everything complete: done (-1), unless lost proofs keep the last row open.
  return rows.some((r) => r.regress > 0) ? last : -1;
}

/**
 * Whether the disk agrees with the claim that row `k` is where the work is. Work under way in
 * the claimed batch agrees, even with work ahead of it (the next batch's research running in
 * parallel, as in the demo); a claimed batch with nothing under way agrees only if nothing is
 * under way after it either.
 */
function agrees(rows: readonly WhereRow[], k: number): boolean {
  const r = rows[k];
  if (r.active > 0) return true;
  const later = rows.slice(k + 1);
  const laterActive = later.some((x) => x.active > 0);
  if (inProgress(r)) return !laterActive;
  // Between batches: the claimed one is finished and the next not begun.
  if (complete(r)) return !later.some(inProgress);
  // About to begin it: everything before it is complete.
  return !laterActive && rows.slice(0, k).every(complete);
}

function pickRow(rows: readonly WhereRow[], claim: number | null): { id: number | null; from: StopSource } {
  const disk = diskIndex(rows);
  const k = claim === null ? -1 : rows.findIndex((r) => r.id === claim);
  // A live run is where work is; the journal's cut run only where the disk has nothing later.
  // Runs in the claimed batch confirm the claim; only runs elsewhere alone overrule it.
  let run = lastIndex(rows, (r) => r.running > 0);
  if (run < 0) {
    const cut = lastIndex(rows, (r) => r.cut > 0);
    if (cut >= 0 && cut >= disk) run = cut;
  }
  if (run >= 0) {
    const confirms = k >= 0 && (rows[k].running > 0 || (rows[run].running === 0 && rows[k].cut > 0));
    return { id: rows[confirms ? k : run].id, from: 'runs' };
  }
  if (k >= 0 && agrees(rows, k)) return { id: rows[k].id, from: 'checkpoint' };
  return { id: disk >= 0 ? rows[disk].id : null, from: 'disk' };
}

const BASIS: Record<StopSource, string> = { runs: 'runs are in', checkpoint: 'the checkpoint says', disk: 'the disk shows work in' };

export function stoppedAt(input: StopInput): StoppedAt {
  const { claim } = input;
  const ph = pickRow(input.phases, claim?.phase ?? null);
  let batch: number | null = null;
  let from = ph.from;
  if (ph.id === input.batchedPhase && input.batches.length) {
    const b = pickRow(input.batches, claim?.batch ?? null);
    batch = b.id;
    from = b.from;
  }
  const out: StoppedAt = { phase: ph.id, batch, from };
  if (!claim) return out;
  out.checkpointSays = { phase: claim.phase, batch: claim.batch };
  const phaseOff = claim.phase !== null && claim.phase !== ph.id;
  const batchOff = claim.batch !== null && batch !== null && claim.batch !== batch;
  if (phaseOff || batchOff) {
    const says = [phaseOff ? `Phase ${claim.phase}` : '', batchOff || (phaseOff && claim.batch !== null) ? `Batch ${claim.batch}` : ''].filter(Boolean).join(' · ');
    const is = [phaseOff && ph.id !== null ? `Phase ${ph.id}` : '', batch !== null ? `Batch ${batch}` : ''].filter(Boolean).join(' · ');
    out.disagreement = `the checkpoint says ${says}; ${is ? `${BASIS[from]} ${is}` : 'the disk shows every phase done'}`;
  }
  return out;
}

/** The header's short form of a disagreement ("checkpoint says Batch 1"), or null when they agree. */
export function disagreementShort(s: StoppedAt | undefined): string | null {
  if (!s?.disagreement || !s.checkpointSays) return null;
  const c = s.checkpointSays;
  if (c.phase !== null && c.phase !== s.phase) return `checkpoint says Phase ${c.phase}`;
  return c.batch !== null ? `checkpoint says Batch ${c.batch}` : null;
}
