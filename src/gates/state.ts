import { basename } from 'node:path';
import type { Cell, CellStatus, Claim, Discrepancy, DiskState, NextStep, PartialFile, PipelineDef, StepDef, Warning, WorkspaceState } from '../types.js';
import { cellKey } from '../types.js';
import { unitPath } from '../scan/units.js';
import { gatesPreset } from '../pipeline/gates-preset.js';
import { blockersOf } from './blocked.js';
import { compareSteps } from './gate-file.js';
import { ARTIFACTS_DIR } from './plan.js';
import { REASONING_DIR } from './reasoning.js';
import { GATES_DIR } from './scan.js';
import { WORKFLOWS_DIR } from './workflow-file.js';
import type { GateCell, GateProof, GateProofKind, GateStep, GateWorkflow, GateWorkspace } from './types.js';

// A gate-file workspace (docs/domain.md, Workflow gate files) as the control room's WorkspaceState, so the
// Progress, Partials, Plan and Sources views work on it unchanged: one unit per workflow,
// one step (column) per plan step number across workflows (`s04`, `s04.5`). The gate is the
// proof, as markers are for the book: passed → done, failed validation → failed (with its
// failure class), cut-off or unreadable gate / interrupted reasoning → partial, none →
// not started. The plan's `status` plays checkpoint.md's part: a claim, compared, not believed.
// A cell's facts are the gate file's (size, characters, time, as read); `marker` means what it
// means for the book — proof of completion found — which here is a passing (or skipped) gate.
// `path`, `exists`, `bytes` and `disk` all speak of that one file, where it is or will be
// written: an interrupted step has no gate, so its disk is `missing` even though the step is
// partial (its verdict says so; its gate proof names the reasoning file, the evidence).
// A triage verdict judges a half-product (types.ts Verdict, docs/domain.md, Half-products); a failed
// gate is a whole file that says "failed", so it has none: its failure class and errors are
// the cell's gate proof and the reason of its plan entry.

/** `04.5` → `s04.5`: a step id that reads like the gate file and never starts with a digit. */
export const gateStepId = (number: string): string => `s${number}`;

const PLAN_CLAIM: Record<string, Claim> = { completed: 'done', in_progress: 'in_progress', pending: 'not_started', blocked: 'needs_human', failed: 'failed' };

/** Where a step's gate is, or would be written (`{step}-{agent}.json`). */
const gatePath = (wf: string, s: GateStep): string => s.gate?.file ?? s.gatePath ?? `${GATES_DIR}/${wf}/${s.number}-${s.agent || 'agent'}.json`;

function statusOf(s: GateStep): { status: CellStatus; disk: DiskState } {
  switch (s.status) {
    case 'done':
    case 'skipped':
      return { status: 'done', disk: 'done' };
    case 'failed':
      // A gate file is there but proves nothing: as in the book, a file without its proof.
      return { status: 'failed', disk: s.file?.exists === false ? 'missing' : 'partial' };
    case 'partial':
      // A broken gate is half a step on disk; reasoning with no final decision and no gate is
      // half a step too, but nothing is at the gate's path.
      return { status: 'partial', disk: s.gate ? 'partial' : 'missing' };
    default:
      return { status: 'not_started', disk: 'missing' };
  }
}

const PROOF_KIND: Record<GateStep['status'], GateProofKind> = { done: 'passed', skipped: 'skipped', failed: 'failed', partial: 'interrupted', not_started: 'none' };

/** What stands as the step's proof, for the cell detail (gate terms, not marker terms). */
export function proofOf(s: GateStep): GateProof {
  const g = s.gate;
  const broken = g && s.status === 'partial' ? (g.shape === 'truncated' ? 'cut_off' : 'unreadable') : null;
  return {
    kind: broken ?? PROOF_KIND[s.status],
    shape: g?.shape ?? null,
    failureClass: s.failureClass ?? null,
    errors: g?.errors ?? [],
    timestamp: g?.timestamp ?? null,
    reasoning: s.reasoning,
    ...(g?.provenBy?.length ? { provenBy: g.provenBy } : {}),
  };
}

/** Why a failed gate failed: its failure class and first error (docs/domain.md, Failure classes and their caps). */
function failureReason(s: GateStep): string {
  const errs = s.gate?.errors ?? [];
  return `${s.failureClass ?? 'UNKNOWN'}: validation failed${errs.length ? ` (${errs.length} error${errs.length === 1 ? '' : 's'}: ${errs[0]})` : ''}`;
}

function triageOf(w: GateWorkflow, s: GateStep): Cell['triage'] {
  if (s.status !== 'partial') return null;
  if (s.gate) return { verdict: 'truncated', reason: `gate ${s.gate.shape === 'truncated' ? 'cut off mid-write' : 'unreadable'} (${s.gate.errors[0] ?? s.gate.shape}); re-run the validation` };
  if (w.interrupted.includes(s.number)) return { verdict: 'almost_certainly_partial', reason: 'reasoning has no final decision and there is no gate: the step was interrupted; redo it' };
  return { verdict: 'maybe_complete', reason: 'no passing gate' };
}

/** The pipeline the state shows: the preset's shape with one step per step number seen. */
function pipelineOf(workflows: GateWorkflow[], base: PipelineDef): PipelineDef {
  const seen = new Map<string, GateStep>();
  for (const w of workflows) for (const s of w.steps) if (!seen.has(s.number)) seen.set(s.number, s);
  const numbers = [...seen.keys()].sort(compareSteps);
  const steps: StepDef[] = numbers.map((n) => {
    const s = seen.get(n)!;
    return {
      id: gateStepId(n),
      label: `${n} ${s.agent || s.name}`,
      aliases: [n],
      path: `${GATES_DIR}/{unit}/${n}-${s.agent || 'agent'}.json`,
      marker: null,
      dependsOn: s.dependencies.filter((d) => seen.has(d)).map(gateStepId),
      phase: 1,
      kind: 'file',
      agent: s.agent || undefined,
      minChars: 0,
    };
  });
  return { ...base, steps, units: { ...base.units, list: workflows.map((w) => w.id) } };
}

const NO_PROOF: GateProof = { kind: 'none', shape: null, failureClass: null, errors: [], timestamp: null, reasoning: null };

export interface GateStateOptions {
  name?: string;
  pipeline?: PipelineDef;
  running?: ReadonlySet<string>;
  /** Warnings from reading the configuration, shown first. */
  warnings?: readonly Warning[];
  now?: number;
}

/** A step only another workflow has: an empty cell keeps the matrix rectangular. */
const emptyCell = (w: GateWorkflow, def: StepDef): GateCell => ({
  unit: w.id,
  step: def.id,
  batch: null,
  path: unitPath(def, w.id),
  status: 'not_started',
  disk: 'missing',
  checkpoint: null,
  exists: false,
  bytes: 0,
  chars: 0,
  marker: false,
  mtimeMs: 0,
  triage: null,
  blockedBy: [],
  gate: NO_PROOF,
});

/** One workflow's part of the state; its blockers are filled in once all its cells are known. */
interface WorkflowPart {
  cells: GateCell[];
  partials: PartialFile[];
  discrepancies: Discrepancy[];
  next: NextStep[];
  failed: GateStep[];
}

/** A step's cell, from its gate, its plan status and whether an agent runs it now. */
function stepCell(w: GateWorkflow, def: StepDef, s: GateStep, running: ReadonlySet<string>): GateCell {
  const base = statusOf(s);
  const f = s.file;
  return {
    unit: w.id,
    step: def.id,
    batch: null,
    path: gatePath(w.id, s),
    status: running.has(`${w.id}/${def.id}`) && base.status !== 'done' ? 'running' : base.status,
    disk: base.disk,
    checkpoint: s.planStatus ? (PLAN_CLAIM[s.planStatus] ?? null) : null,
    exists: f ? f.exists : !!s.gate,
    bytes: f?.bytes ?? 0,
    chars: f?.chars ?? 0,
    marker: base.disk === 'done',
    mtimeMs: f?.mtimeMs ?? 0,
    triage: triageOf(w, s),
    blockedBy: [],
    gate: proofOf(s),
  };
}

/** What a step's cell adds to the lists: a half-product, a plan the gate contradicts, a redo. */
function noteStep(part: WorkflowPart, s: GateStep, cell: GateCell): void {
  const { unit, step, triage } = cell;
  // Every half-step is a half-product the summary counts: a broken gate, and
  // an interrupted step, whose evidence is its reasoning file with no final decision.
  if (s.status === 'partial' && triage) {
    const size = s.gate ? cell : (s.reasoningSize ?? cell);
    part.partials.push({ path: s.gate ? cell.path : (s.reasoning ?? cell.path), unit, step, chars: size.chars, bytes: size.bytes, verdict: triage.verdict, reason: triage.reason });
  }
  if (cell.checkpoint === 'done' && statusOf(s).status !== 'done') {
    part.discrepancies.push({ unit, step, checkpoint: 'done', disk: cell.disk, note: `the plan says completed; the gate is ${s.gate ? (s.status === 'failed' ? 'failed' : s.gate.shape) : 'missing'} — the gate decides` });
  }
  if (s.status === 'failed') part.failed.push(s);
  else if (s.status === 'partial') {
    part.next.push({ priority: 2, unit, step, action: s.gate ? 'backup_redo' : 'run', reason: `${s.agent}: ${triage?.reason ?? 'interrupted'}`, blocks: 0 });
  }
}

/** What each unfinished cell waits on, from this workflow's own dependencies (another
 *  workflow may order the same step numbers differently). */
function fillBlockers(w: GateWorkflow, own: GateCell[]): void {
  const blocked = blockersOf(
    own.map((c) => c.step),
    new Map(w.steps.map((s) => [gateStepId(s.number), s.dependencies.map(gateStepId)])),
    new Map(own.map((c) => [c.step, c.status])),
  );
  for (const c of own) c.blockedBy = (blocked.get(c.step) ?? []).map((id) => cellKey(w.id, id));
}

/** The plan's entries for a workflow's failures (by what each holds up) and its next step. */
function workflowNext(w: GateWorkflow, part: WorkflowPart): void {
  for (const s of part.failed) {
    const key = cellKey(w.id, gateStepId(s.number));
    // What a failure holds up: the cells that list it among their blockers.
    const blocks = part.cells.filter((c) => c.blockedBy.includes(key)).length;
    part.next.push({ priority: 1, unit: w.id, step: gateStepId(s.number), action: 'retry', reason: `${s.agent}: ${failureReason(s)}`, blocks });
  }
  if (w.next && !part.next.some((n) => n.step === gateStepId(w.next!.number))) {
    part.next.push({ priority: 3, unit: w.id, step: gateStepId(w.next.number), action: 'run', reason: `next step of the workflow: ${w.next.name} (${w.next.agent})`, blocks: 0 });
  }
}

/** One workflow: a cell per pipeline step, then its blockers and plan entries. */
function workflowPart(w: GateWorkflow, pipeline: PipelineDef, running: ReadonlySet<string>): WorkflowPart {
  const byNumber = new Map(w.steps.map((s) => [s.number, s]));
  const part: WorkflowPart = { cells: [], partials: [], discrepancies: [], next: [], failed: [] };
  for (const def of pipeline.steps) {
    const s = byNumber.get(def.aliases[0]);
    if (!s) {
      part.cells.push(emptyCell(w, def));
      continue;
    }
    const cell = stepCell(w, def, s, running);
    part.cells.push(cell);
    noteStep(part, s, cell);
  }
  fillBlockers(w, part.cells);
  workflowNext(w, part);
  return part;
}

/** The one phase of a gate-file workspace: done when every cell is, in progress once any moved. */
function phaseOf(cells: readonly Cell[], pipeline: PipelineDef): WorkspaceState['phases'][number] {
  const done = cells.filter((c) => c.status === 'done').length;
  const total = cells.length;
  const status = total > 0 && done === total ? 'done' : cells.some((c) => c.status !== 'not_started') ? 'in_progress' : 'not_started';
  return { id: 1, name: pipeline.phases[0]?.name ?? 'Workflow', status: cells.some((c) => c.status === 'failed') && status !== 'done' ? 'in_progress' : status, done, total, missing: [] };
}

/** The gates preset's derivation (src/pipeline/presets/gates.ts): the workflows as a WorkspaceState. */
export function gateWorkspaceState(root: string, gw: GateWorkspace, opts: GateStateOptions = {}): WorkspaceState {
  const pipeline = pipelineOf(gw.workflows, opts.pipeline ?? gatesPreset());
  const running = opts.running ?? new Set<string>();
  const warnings: Warning[] = [...(opts.warnings ?? []), ...gw.warnings];
  const parts = gw.workflows.map((w) => {
    warnings.push(...w.warnings);
    const part = workflowPart(w, pipeline, running);
    for (const a of w.missingArtifacts) warnings.push({ source: a.path, message: `artifact "${a.name}" is in the registry but not on disk` });
    return part;
  });
  const cells = parts.flatMap((p) => p.cells);
  const phase = phaseOf(cells, pipeline);
  const lastPlan = gw.workflows.find((w) => w.planStatus)?.planStatus ?? null;
  return {
    root,
    name: opts.name ?? basename(root),
    pipeline,
    units: gw.workflows.map((w) => w.id),
    cells,
    phases: [phase],
    batches: [],
    currentPhase: phase.done === phase.total && phase.total > 0 ? null : 1,
    currentBatch: null,
    partials: parts.flatMap((p) => p.partials),
    suspects: [],
    discrepancies: parts.flatMap((p) => p.discrepancies),
    next: parts.flatMap((p) => p.next).sort((a, b) => a.priority - b.priority || b.blocks - a.blocks),
    warnings,
    checkpoint: { exists: gw.workflows.some((w) => w.planStatus !== null), lang: 'en', lastUpdate: lastPlan ? `plan ${lastPlan}` : null },
    scannedAt: opts.now ?? Date.now(),
    preset: 'gates',
    todos: null,
  };
}

/** Directories a live workspace watches for a gate-file workspace (one watch each). */
export function gateWatchDirs(gw: GateWorkspace): string[] {
  const ids = gw.workflows.map((w) => w.id);
  // The workflow files too: they give the steps and dependencies.
  return ['.claude', '.claude/context', '.claude/context/history', GATES_DIR, REASONING_DIR, ARTIFACTS_DIR, '.claude/context/memory', WORKFLOWS_DIR, ...ids.flatMap((id) => [`${GATES_DIR}/${id}`, `${REASONING_DIR}/${id}`])];
}
