import { posix } from 'node:path';
import type { BatchDef, BatchProgress, Cell, Claim, PhaseProgress, PhaseStatus, PipelineDef, WorkspaceState, Warning } from '../types.js';
import { cellKey } from '../types.js';
import type { CheckpointDoc } from '../checkpoint/types.js';
import type { ScanResult } from '../scan/scan.js';
import { reconcile } from '../reconcile/reconcile.js';
import { planNext } from '../plan/plan.js';
import type { CutMap } from '../triage/cut-evidence.js';
import { planShape } from '../plan/unit-plan.js';
import { deriveWhere } from './where-derive.js';

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
  /** The journal's evidence of cut writers: read at the edge, passed in as data. */
  cuts?: CutMap;
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
  // The id-null rows (tables under no batch heading) are units of no batch, not a batch.
  return (doc?.batches ?? []).flatMap((b) => (b.id === null ? [] : [{ id: b.id, units: b.rows.map((r) => r.unit) }]));
}

export const statusOfCounts = (done: number, total: number, touched: boolean): PhaseStatus =>
  total > 0 && done === total ? 'done' : touched || done > 0 ? 'in_progress' : 'not_started';

/** Done / total / touched of a phase or batch: the full derive counts `touched` as a flag, the live one by delta. */
export interface ProgressTally {
  done: number;
  total: number;
  touched: boolean | number;
}
const NO_TALLY: ProgressTally = { done: 0, total: 0, touched: false };

/** Every phase's progress: a phase of artifacts by the files it names, a phase of steps by its cells' tally.
 *  The one derivation of the full and the live path. */
export function phaseProgress(
  pipeline: PipelineDef,
  scan: Pick<ScanResult, 'artifacts'>,
  byPhase: ReadonlyMap<number, ProgressTally>,
): { phases: PhaseProgress[]; missingArtifacts: Map<number, string[]> } {
  const missingArtifacts = new Map<number, string[]>();
  const phases = pipeline.phases.map((p): PhaseProgress => {
    if (p.artifacts.length) {
      const missing = p.artifacts.filter((a) => !scan.artifacts.get(a));
      missingArtifacts.set(p.id, missing);
      const done = p.artifacts.length - missing.length;
      return { id: p.id, name: p.name, status: statusOfCounts(done, p.artifacts.length, false), done, total: p.artifacts.length, missing };
    }
    const t = byPhase.get(p.id) ?? NO_TALLY;
    return { id: p.id, name: p.name, status: statusOfCounts(t.done, t.total, Boolean(t.touched)), done: t.done, total: t.total, missing: [] };
  });
  return { phases, missingArtifacts };
}

/** Every batch's progress, then the units no batch names (when there are batches). */
export function batchProgressOf(batches: readonly BatchDef[], unbatched: readonly string[], byBatch: ReadonlyMap<number | null, ProgressTally>): BatchProgress[] {
  const progress = (id: number | null, units: readonly string[]): BatchProgress => {
    const t = byBatch.get(id) ?? NO_TALLY;
    return { id, units: [...units], done: t.done, total: t.total, status: statusOfCounts(t.done, t.total, Boolean(t.touched)) };
  };
  const out = batches.map((b) => progress(b.id, b.units));
  if (unbatched.length && batches.length) out.push(progress(null, unbatched));
  return out;
}


export function deriveState(input: DeriveInput): WorkspaceState {
  const { pipeline, units, scan, checkpoint } = input;
  const batches = batchesOf(pipeline, checkpoint);
  const batchOf = new Map<string, number>();
  for (const b of batches) for (const u of b.units) if (!batchOf.has(u)) batchOf.set(u, b.id);
  const rec = reconcile({ pipeline, units, batchOf, scan, claims: claimsOf(checkpoint), running: input.running, cuts: input.cuts });

  const stepPhase = new Map(pipeline.steps.map((s) => [s.id, s.phase]));
  // One pass: per phase and per batch, done / total / touched.
  type Tally = { done: number; total: number; touched: boolean };
  const tally = (): Tally => ({ done: 0, total: 0, touched: false });
  const byPhase = new Map<number, Tally>();
  const byBatch = new Map<number | null, Tally>();
  const batchedPhase = Math.min(...pipeline.steps.map((s) => s.phase));
  for (const c of rec.cells) {
    const ph = stepPhase.get(c.step) ?? 0;
    let t = byPhase.get(ph);
    if (!t) byPhase.set(ph, (t = tally()));
    t.total++;
    if (c.status === 'done') t.done++;
    if (c.status !== 'not_started') t.touched = true;
    if (ph !== batchedPhase) continue;
    const b = batchOf.get(c.unit) ?? null;
    let bt = byBatch.get(b);
    if (!bt) byBatch.set(b, (bt = tally()));
    bt.total++;
    if (c.status === 'done') bt.done++;
    if (c.status !== 'not_started') bt.touched = true;
  }
  const { phases, missingArtifacts } = phaseProgress(pipeline, scan, byPhase);
  const batchProgress = batchProgressOf(batches, units.filter((u) => !batchOf.has(u)), byBatch);

  const where = deriveWhere({ shape: planShape(pipeline), cells: rec.cells, phases, batches, batchOf, checkpoint, cuts: input.cuts });
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
    stoppedAt: where.stoppedAt,
    regressions: where.regressions,
    partials: rec.partials,
    suspects: rec.suspects,
    discrepancies: rec.discrepancies,
    next,
    warnings: [...input.warnings, ...(checkpoint?.warnings ?? []), ...unreadableWarnings(rec.cells)],
    checkpoint: { exists: checkpoint !== null, lang: checkpoint?.lang ?? 'en', lastUpdate: checkpoint?.lastUpdate ?? null },
    scannedAt: scan.scannedAt,
  };
}

/** Files the scan could not read, one warning per directory and cause (a locked directory is one line, not forty). */
export function unreadableWarnings(cells: readonly Cell[]): Warning[] {
  const groups = new Map<string, string[]>();
  for (const c of cells) {
    if (c.disk !== 'unreadable') continue;
    const key = `${posix.dirname(c.path)}\n${c.error ?? 'cannot read'}`;
    const g = groups.get(key);
    if (g) g.push(c.path);
    else groups.set(key, [c.path]);
  }
  return [...groups].map(([key, paths]) => {
    const [dir, error] = key.split('\n');
    const what = paths.length === 1 ? paths[0] : `${paths.length} files in ${dir}/ (${paths[0]}, …)`;
    const fix = /regular file/.test(error) ? 'put the artifact file there (or remove what is in its place)' : /permission/.test(error) ? 'fix the permissions' : 'fix that';
    return { source: paths.length === 1 ? paths[0] : `${dir}/`, message: `${what}: ${error}. Its state is unknown, so its step waits for a human; ${fix} and rescan (r).` };
  });
}
