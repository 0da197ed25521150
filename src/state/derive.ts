import type { BatchDef, BatchProgress, Cell, Claim, PhaseProgress, PhaseStatus, PipelineDef, WorkspaceState, Warning } from '../types.js';
import { cellKey } from '../types.js';
import type { CheckpointDoc } from '../checkpoint/types.js';
import type { ScanResult } from '../scan/scan.js';
import { reconcile } from '../reconcile/reconcile.js';
import { planNext } from '../plan/plan.js';

// From raw sources (scan + checkpoint + live runs) to the whole reconciled state. Pure:
// the live watcher calls it again after every batch of file events, which is cheap because
// the expensive part (reading files) happened in the scan.

export interface DeriveInput {
  root: string;
  name: string;
  pipeline: PipelineDef;
  units: readonly string[];
  scan: ScanResult;
  checkpoint: CheckpointDoc | null;
  running: ReadonlySet<string>;
  warnings: readonly Warning[];
  /** Opt-in: plan `rebuild_memory` for long-memory entries lost after their work was done (see PlanInput.rebuildMemory). */
  rebuildMemory?: boolean;
}

export function claimsOf(doc: CheckpointDoc | null): Map<string, Claim> {
  const claims = new Map<string, Claim>();
  for (const b of doc?.batches ?? []) for (const row of b.rows) for (const [step, claim] of Object.entries(row.claims)) claims.set(cellKey(row.unit, step), claim);
  return claims;
}

export function batchesOf(pipeline: PipelineDef, doc: CheckpointDoc | null): BatchDef[] {
  if (pipeline.batches.length) return pipeline.batches.map((b) => ({ id: b.id, units: [...b.units] }));
  return (doc?.batches ?? []).map((b) => ({ id: b.id, units: b.rows.map((r) => r.unit) }));
}

const statusOfCounts = (done: number, total: number, touched: boolean): PhaseStatus =>
  total > 0 && done === total ? 'done' : touched || done > 0 ? 'in_progress' : 'not_started';

const touched = (cells: readonly Cell[]): boolean => cells.some((c) => c.status !== 'not_started');

export function deriveState(input: DeriveInput): WorkspaceState {
  const { pipeline, units, scan, checkpoint } = input;
  const batches = batchesOf(pipeline, checkpoint);
  const batchOf = new Map<string, number>();
  for (const b of batches) for (const u of b.units) if (!batchOf.has(u)) batchOf.set(u, b.id);
  const rec = reconcile({ pipeline, units, batchOf, scan, claims: claimsOf(checkpoint), running: input.running });

  const stepPhase = new Map(pipeline.steps.map((s) => [s.id, s.phase]));
  const missingArtifacts = new Map<number, string[]>();
  const phases: PhaseProgress[] = pipeline.phases.map((p) => {
    if (p.artifacts.length) {
      const missing = p.artifacts.filter((a) => !scan.artifacts.get(a));
      missingArtifacts.set(p.id, missing);
      const done = p.artifacts.length - missing.length;
      return { id: p.id, name: p.name, status: statusOfCounts(done, p.artifacts.length, false), done, total: p.artifacts.length, missing };
    }
    const cells = rec.cells.filter((c) => stepPhase.get(c.step) === p.id);
    const done = cells.filter((c) => c.status === 'done').length;
    return { id: p.id, name: p.name, status: statusOfCounts(done, cells.length, touched(cells)), done, total: cells.length, missing: [] };
  });

  const batchProgress: BatchProgress[] = batches.map((b) => {
    const cells = rec.cells.filter((c) => b.units.includes(c.unit) && stepPhase.get(c.step) === 3);
    const done = cells.filter((c) => c.status === 'done').length;
    return { id: b.id, units: [...b.units], done, total: cells.length, status: statusOfCounts(done, cells.length, touched(cells)) };
  });
  const unbatched = units.filter((u) => !batchOf.has(u));
  if (unbatched.length && batches.length) {
    const cells = rec.cells.filter((c) => unbatched.includes(c.unit) && stepPhase.get(c.step) === 3);
    const done = cells.filter((c) => c.status === 'done').length;
    batchProgress.push({ id: null, units: unbatched, done, total: cells.length, status: statusOfCounts(done, cells.length, touched(cells)) });
  }

  const next = planNext({ pipeline, units, cells: rec.cells, partials: rec.partials, batches, missingArtifacts, rebuildMemory: input.rebuildMemory });
  return {
    root: input.root,
    name: input.name,
    pipeline,
    units: [...units],
    cells: rec.cells,
    phases,
    batches: batchProgress,
    currentPhase: phases.find((p) => p.status !== 'done')?.id ?? null,
    currentBatch: batchProgress.find((b) => b.status !== 'done' && b.id !== null)?.id ?? null,
    partials: rec.partials,
    suspects: rec.suspects,
    discrepancies: rec.discrepancies,
    next,
    warnings: [...input.warnings, ...(checkpoint?.warnings ?? [])],
    checkpoint: { exists: checkpoint !== null, lang: checkpoint?.lang ?? 'en', lastUpdate: checkpoint?.lastUpdate ?? null },
    scannedAt: scan.scannedAt,
  };
}
