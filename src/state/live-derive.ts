import type { BatchDef, Cell, Claim, NextStep, WorkspaceState } from '../types.js';
import { reconcileUnit, type ReconcileInput, type UnitResult } from '../reconcile/reconcile.js';
import { planShape, unitPlan, type PlanShape, type UnitPlan } from '../plan/unit-plan.js';
import { blockedPhases, byBlocks, missingEntries, unitRanker } from '../plan/plan.js';
import { batchProgressOf, batchesOf, claimsOf, phaseProgress, unreadableWarnings, type DeriveInput } from './derive.js';
import { insertSorted, spliceRange } from './sorted-splice.js';
import { countKind, emptyWhere, type Regression, type WhereTally } from './where-cells.js';
import { stopOf, unitWhere } from './where-derive.js';

// The state, kept by delta: a file event re-derives only the units it
// touches; phase and batch tallies move by the difference; the plan and the cell, partial and
// discrepancy lists get those units' items spliced in. What no single unit decides — the
// order of units, batches, claims — is "structure": when it changes, everything is rebuilt.
// `deriveState` is this, built once; the property test in test/property/live-derive-property.test.ts
// holds the live state equal to a fresh `loadWorkspace` after any sequence of file events.

interface UnitEntry {
  rec: UnitResult;
  plan: UnitPlan;
  /** Its regressions and what each cell says about where the work stopped. */
  where: ReturnType<typeof unitWhere>;
}
interface Tally {
  done: number;
  total: number;
  touched: number;
}
interface Gated {
  entry: NextStep;
  phase: number;
}

/** Above this many changed units, one pass over every unit beats splicing each. */
const SPLICE_MAX = 32;

export class LiveDerivation {
  private input!: DeriveInput;
  private shape!: PlanShape;
  private batches!: BatchDef[];
  private batchOf!: Map<string, number>;
  private claims!: Map<string, Claim>;
  private unitIdx!: Map<string, number>;
  private unitRank!: (u: string) => number;
  private slots!: Map<string, number[]>;
  private units!: string[];
  private unbatched!: string[];
  private entries = new Map<string, UnitEntry>();
  private unsettledIn: number[] = [];
  private byPhase = new Map<number, Tally>();
  private byBatch = new Map<number | null, Tally>();
  private unreadable = new Set<string>();
  private wherePhase = new Map<number, WhereTally>();
  private whereBatch = new Map<number | null, WhereTally>();
  private regressions: Regression[] = [];
  private cells: Cell[] = [];
  private partials: WorkspaceState['partials'] = [];
  private suspects: WorkspaceState['suspects'] = [];
  private discrepancies: WorkspaceState['discrepancies'] = [];
  private p1: NextStep[] = [];
  private rebuild: NextStep[] = [];
  private p2: NextStep[] = [];
  private p3all: Gated[] = [];
  private p3: NextStep[] = [];
  private gates = '';
  state!: WorkspaceState;

  constructor(input: DeriveInput) {
    this.build(input);
  }

  /** The cells of one unit in step order (empty for an unknown unit). */
  cellsOf(unit: string): Cell[] {
    return this.entries.get(unit)?.rec.cells ?? [];
  }

  /**
   * A new state after `units` changed on disk (their facts, running flags) or, with
   * `structure`, after the unit list, the checkpoint or the pipeline changed.
   */
  update(input: DeriveInput, change: { units?: Iterable<string>; structure?: boolean }): WorkspaceState {
    if (change.structure || input.pipeline !== this.input.pipeline || input.checkpoint !== this.input.checkpoint) return this.build(input, new Set(change.units ?? []));
    this.input = input;
    const dirty = [...new Set(change.units ?? [])].filter((u) => this.unitIdx.has(u));
    if (dirty.length > SPLICE_MAX) {
      for (const u of dirty) this.recompute(u);
      this.assemble();
    } else {
      this.cells = this.cells.slice();
      for (const u of dirty) this.splice(u, this.recompute(u));
    }
    return this.publish(dirty);
  }

  /** Everything again; a unit none of whose inputs changed (not `dirty`, same batch, claims, pipeline) keeps its results. */
  private build(input: DeriveInput, dirty: ReadonlySet<string> = new Set()): WorkspaceState {
    const prev = this.input && this.input.pipeline === input.pipeline && this.input.rebuildMemory === input.rebuildMemory && this.input.running === input.running && this.input.cuts === input.cuts
      ? { entries: this.entries, batchOf: this.batchOf, claims: this.claims }
      : null;
    this.input = input;
    this.shape = planShape(input.pipeline);
    this.batches = batchesOf(input.pipeline, input.checkpoint);
    this.batchOf = new Map();
    for (const b of this.batches) for (const u of b.units) if (!this.batchOf.has(u)) this.batchOf.set(u, b.id);
    this.claims = claimsOf(input.checkpoint);
    this.units = [...input.units];
    this.unitIdx = new Map(this.units.map((u, i) => [u, i]));
    this.unitRank = unitRanker(this.batches, this.units, (u) => this.batchOf.get(u) ?? null);
    this.slots = new Map();
    this.batches.forEach((b, i) => b.units.forEach((u) => this.slots.set(u, [...(this.slots.get(u) ?? []), i])));
    this.unbatched = this.units.filter((u) => !this.batchOf.has(u));
    this.entries = new Map();
    this.unsettledIn = this.batches.map(() => 0);
    this.byPhase = new Map();
    this.byBatch = new Map();
    this.wherePhase = new Map();
    this.whereBatch = new Map();
    this.unreadable = new Set();
    const keys = (u: string): string[] => input.pipeline.steps.map((st) => `${u}/${st.id}`);
    const same = (u: string): boolean =>
      !!prev && !dirty.has(u) && prev.batchOf.get(u) === this.batchOf.get(u) && keys(u).every((k) => prev.claims.get(k) === this.claims.get(k));
    for (const u of this.units) {
      const kept = same(u) ? prev!.entries.get(u) : undefined;
      if (!kept) this.recompute(u);
      else {
        this.entries.set(u, kept);
        this.count(u, kept, 1);
      }
    }
    this.assemble();
    this.gates = '';
    return this.publish([]);
  }

  private reconcileInput(): ReconcileInput {
    const { pipeline, scan, running, cuts } = this.input;
    return { pipeline, units: this.units, batchOf: this.batchOf, scan, claims: this.claims, running, cuts };
  }

  /** Re-derive one unit and move the tallies by the difference; returns the old entry. */
  private recompute(u: string): UnitEntry | undefined {
    const old = this.entries.get(u);
    const rec = reconcileUnit(u, this.reconcileInput());
    const entry: UnitEntry = { rec, plan: unitPlan(this.shape, u, rec.cells, rec.partials, this.input.rebuildMemory ?? false), where: unitWhere(rec.cells, this.shape, this.input.cuts) };
    if (old) this.count(u, old, -1);
    this.count(u, entry, 1);
    this.entries.set(u, entry);
    return old;
  }

  private count(u: string, e: UnitEntry, sign: 1 | -1): void {
    const tally = (m: Map<number | null, Tally>, k: number | null): Tally => {
      let t = m.get(k);
      if (!t) m.set(k, (t = { done: 0, total: 0, touched: 0 }));
      return t;
    };
    const batch = this.batchOf.get(u) ?? null;
    const where = <K>(m: Map<K, WhereTally>, k: K): WhereTally => {
      let t = m.get(k);
      if (!t) m.set(k, (t = emptyWhere()));
      return t;
    };
    let unreadable = false;
    for (const [n, c] of e.rec.cells.entries()) {
      const ph = this.shape.stepById.get(c.step)?.phase ?? 0;
      const ts = [tally(this.byPhase as Map<number | null, Tally>, ph)];
      countKind(where(this.wherePhase, ph), e.where.kinds[n], sign);
      if (ph === this.shape.phaseOfBatches) countKind(where(this.whereBatch, batch), e.where.kinds[n], sign);
      if (ph === this.shape.phaseOfBatches) ts.push(tally(this.byBatch, batch));
      for (const t of ts) {
        t.total += sign;
        if (c.status === 'done') t.done += sign;
        if (c.status !== 'not_started') t.touched += sign;
      }
      if (c.disk === 'unreadable') unreadable = true;
    }
    if (e.plan.unsettled) for (const i of this.slots.get(u) ?? []) this.unsettledIn[i] += sign;
    if (sign > 0 && unreadable) this.unreadable.add(u);
    else if (sign > 0) this.unreadable.delete(u);
  }

  private rank = (e: NextStep): number => this.unitRank(e.unit!) + (this.shape.stepIndex.get(e.step!) ?? 0);
  private idxOf = (x: { unit: string | null }): number => this.unitIdx.get(x.unit!) ?? -1;

  /** Every list from every unit, in order: after a build or a large batch of changes. */
  private assemble(): void {
    const es = this.units.map((u) => this.entries.get(u)!);
    const byRank = [...this.units].sort((a, b) => this.unitRank(a) - this.unitRank(b)).map((u) => this.entries.get(u)!);
    this.cells = es.flatMap((e) => e.rec.cells);
    this.partials = es.flatMap((e) => e.rec.partials);
    this.suspects = es.flatMap((e) => e.rec.suspects);
    this.discrepancies = es.flatMap((e) => e.rec.discrepancies);
    this.regressions = es.flatMap((e) => e.where.regressions);
    this.p1 = es.flatMap((e) => e.plan.p1).sort(byBlocks(this.rank));
    this.rebuild = es.flatMap((e) => e.plan.rebuild);
    this.p2 = byRank.flatMap((e) => e.plan.p2);
    this.p3all = byRank.flatMap((e) => e.plan.p3);
    this.gates = '';
  }

  /** One unit's new items into every list (the cells array is already a copy). */
  private splice(u: string, old: UnitEntry | undefined): void {
    const e = this.entries.get(u)!;
    const i = this.unitIdx.get(u)!;
    const n = this.shape.pipeline.steps.length;
    for (let k = 0; k < n; k++) this.cells[i * n + k] = e.rec.cells[k];
    this.partials = spliceRange(this.partials, this.idxOf, i, i + 1, e.rec.partials);
    this.suspects = spliceRange(this.suspects, this.idxOf, i, i + 1, e.rec.suspects);
    this.discrepancies = spliceRange(this.discrepancies, this.idxOf, i, i + 1, e.rec.discrepancies);
    this.rebuild = spliceRange(this.rebuild, this.idxOf, i, i + 1, e.plan.rebuild);
    this.regressions = spliceRange(this.regressions, this.idxOf, i, i + 1, e.where.regressions);
    const r = this.unitRank(u);
    this.p2 = spliceRange(this.p2, this.rank, r, r + 1e3, e.plan.p2);
    this.p3all = spliceRange(this.p3all, (g) => this.rank(g.entry), r, r + 1e3, e.plan.p3);
    if (old?.plan.p1.length || e.plan.p1.length) {
      const p1 = old?.plan.p1.length ? this.p1.filter((x) => x.unit !== u) : this.p1.slice();
      for (const x of e.plan.p1) insertSorted(p1, x, byBlocks(this.rank));
      this.p1 = p1;
    }
  }

  private publish(dirty: readonly string[]): WorkspaceState {
    const { pipeline, scan, checkpoint } = this.input;
    const { phases, missingArtifacts } = phaseProgress(pipeline, scan, this.byPhase);
    const batchProgress = batchProgressOf(this.batches, this.unbatched, this.byBatch);
    this.gate(missingArtifacts, dirty);
    let started = false;
    for (const t of this.byPhase.values()) if (t.touched > 0) started = true;
    const next = [...missingEntries(pipeline, missingArtifacts, started), ...this.p1, ...this.rebuild, ...this.p2, ...this.p3];
    const unreadableCells = [...this.unreadable].sort((a, b) => this.unitIdx.get(a)! - this.unitIdx.get(b)!).flatMap((u) => this.cellsOf(u));
    this.state = {
      root: this.input.root,
      name: this.input.name,
      pipeline,
      units: this.units,
      cells: this.cells,
      phases,
      batches: batchProgress,
      currentPhase: phases.find((p) => p.status !== 'done')?.id ?? null,
      currentBatch: batchProgress.find((b) => b.status !== 'done' && b.id !== null)?.id ?? null,
      // From the tallies kept by delta: O(phases + batches), never a pass over the cells.
      stoppedAt: stopOf(pipeline, phases, this.wherePhase, this.batches, this.whereBatch, this.shape.phaseOfBatches, checkpoint),
      regressions: this.regressions,
      partials: this.partials,
      suspects: this.suspects,
      discrepancies: this.discrepancies,
      next,
      warnings: [...this.input.warnings, ...(checkpoint?.warnings ?? []), ...unreadableWarnings(unreadableCells)],
      checkpoint: { exists: checkpoint !== null, lang: checkpoint?.lang ?? 'en', lastUpdate: checkpoint?.lastUpdate ?? null },
      scannedAt: scan.scannedAt,
    };
    return this.state;
  }

  /** Priority-3 work through the phase and batch gates; only the dirty units unless a gate moved. */
  private gate(missingArtifacts: Map<number, string[]>, dirty: readonly string[]): void {
    const blocked = blockedPhases(this.shape.pipeline, missingArtifacts, (ph) => {
      const t = this.byPhase.get(ph);
      return !!t && t.done < t.total;
    });
    // The first batch with an unsettled unit (plan.ts firstClosedBatch, from the counts).
    const closed = this.unsettledIn.findIndex((n) => n > 0);
    const upTo = closed < 0 ? this.batches.length : closed;
    const key = `${[...blocked].join()}|${upTo}`;
    const open = (g: Gated): boolean =>
      !blocked.has(g.phase) && (g.phase !== this.shape.phaseOfBatches || Math.floor(this.unitRank(g.entry.unit!) / 1e9) <= upTo);
    if (key !== this.gates || dirty.length > SPLICE_MAX) this.p3 = this.p3all.filter(open).map((g) => g.entry);
    else
      for (const u of dirty) {
        const r = this.unitRank(u);
        this.p3 = spliceRange(this.p3, this.rank, r, r + 1e3, this.entries.get(u)!.plan.p3.filter(open).map((g) => g.entry));
      }
    this.gates = key;
  }
}
