import type { Warning } from '../types.js';
import { classifyGate, compareSteps, displayStep } from './gate-file.js';
import { cutOffProof, cutOffWarning } from './cut-off.js';
import type { RegistryArtifact } from './registry.js';
import type { Gate, GateFileFacts, GateStep, GateStepStatus, GateWorkflow, MemoryFile, Plan, PlanStep, ReasoningNote } from './types.js';
import type { WorkflowDef } from './workflow-file.js';

/** scan.ts's GATES_DIR (scan.ts imports this module, so it is not imported back). */
const GATES_DIR = '.claude/context/history/gates';

// Putting one workflow together from what was read (pure). docs/domain.md, Workflow gate files: "the highest
// step that passed is the last one finished"; then resume from the next step
// whose dependencies are satisfied. The gate is the proof (docs/domain.md, The core idea): a plan that
// says `completed` without a passing gate is a claim, reported, not believed.

export interface NumberedGate {
  number: string;
  gate: Gate;
  /** Disk facts of the gate file, when they were read. */
  file?: GateFileFacts;
  /** A gate cut off mid-write: its size and the parse error, for the warning. */
  cutOff?: string;
}

export interface WorkflowInput {
  id: string;
  plan: Plan | null;
  /** The workflow file the run follows, when one was found: its steps and dependencies stand. */
  def?: WorkflowDef | null;
  gates: NumberedGate[];
  reasoning: ReasoningNote[];
  missingArtifacts: { name: string; path: string }[];
  /** Registry artifacts found on disk: proof for a cut-off gate of their step. */
  artifactsOnDisk?: RegistryArtifact[];
  memory: MemoryFile[];
  warnings: Warning[];
}

function statusOf(gate: Gate | null, interrupted: boolean): GateStepStatus {
  if (!gate) return interrupted ? 'partial' : 'not_started';
  if (gate.provenBy?.length) return 'done';
  if (gate.shape === 'truncated' || gate.shape === 'malformed') return 'partial';
  if (gate.skipped) return 'skipped';
  return gate.passed ? 'done' : 'failed';
}

/** Take the gate for a plan step: same number, same agent if any matches, else the first. */
function takeGate(pool: NumberedGate[], number: string, agent: string): NumberedGate | null {
  const same = pool.filter((g) => g.number === number);
  const pick = same.find((g) => agent && g.gate.agent === agent) ?? same[0];
  if (!pick) return null;
  pool.splice(pool.indexOf(pick), 1);
  return pick;
}

/**
 * A gate path as the workflow file writes it, for this run (`{{workflow_id}}` expanded) —
 * only a plain file in the run's own gates folder: a cell's path is where actions write.
 */
const expandGate = (template: string | null, id: string): string | undefined => {
  const p = template?.replace(/\{\{\s*workflow_id\s*\}\}/g, id).replace(/^\.\//, '');
  if (!p || !p.startsWith(`${GATES_DIR}/${id}/`)) return undefined;
  const name = p.slice(GATES_DIR.length + id.length + 2);
  return /^[\w.-]+\.json$/.test(name) && !name.startsWith('.') ? p : undefined;
};

/**
 * The steps to show: the workflow file's, with what the plan claims of
 * each; a plan step the file does not have is reported, not invented. Without a workflow
 * file, the plan's steps.
 */
function stepsOf(input: WorkflowInput): (PlanStep & { gatePath?: string })[] {
  const { def, plan, id, warnings } = input;
  if (!def) return plan?.steps ?? [];
  const planned = new Map((plan?.steps ?? []).map((s) => [s.number, s]));
  for (const s of plan?.steps ?? []) {
    if (def.steps.some((d) => d.key === s.number)) continue;
    warnings.push({ source: plan!.files[0] ?? `plan-${id}.json`, message: `the plan lists step ${displayStep(s.number)} (${s.agent || s.name}), which ${def.file} does not have; not shown as a step — check the plan follows that workflow` });
  }
  return def.steps.map((d) => {
    const p = planned.get(d.key);
    return { number: d.key, name: d.name, agent: d.agent || p?.agent || '', dependencies: d.dependencies, status: p?.status ?? null, ...(p?.tasks ? { tasks: p.tasks } : {}), gatePath: expandGate(d.gate, id) };
  });
}

export function buildWorkflow(input: WorkflowInput): GateWorkflow {
  const { id, plan, reasoning, warnings } = input;
  const def = input.def ?? null;
  const pool = [...input.gates];
  const decided = new Set(reasoning.filter((r) => r.hasDecision).map((r) => r.number));
  const thought = new Set(reasoning.map((r) => r.number));
  const reasoningOf = new Map<string, ReasoningNote[]>();
  for (const r of reasoning) reasoningOf.set(r.number, [...(reasoningOf.get(r.number) ?? []), r]);
  const rows: (GateStep & { key: string; inPlan: boolean })[] = [];
  const add = (key: string, agent: string, name: string, taken: NumberedGate | null, dependencies: string[], planStatus: string | null, inPlan: boolean, gatePath?: string) => {
    const gate = taken?.gate ?? null;
    const interrupted = !gate && thought.has(key) && !decided.has(key);
    const status = statusOf(gate, interrupted);
    const file = gate ? (taken?.file ?? null) : null;
    const notes = reasoningOf.get(key) ?? [];
    const note = notes.find((r) => r.agent === agent) ?? notes[0];
    const row: GateStep & { key: string; inPlan: boolean } = { key, inPlan, number: displayStep(key), agent, name, status, gate, file, reasoning: note?.file ?? null, dependencies, planStatus, ...(gatePath ? { gatePath } : {}), ...(note?.bytes !== undefined ? { reasoningSize: { bytes: note.bytes, chars: note.chars ?? 0 } } : {}) };
    if (status === 'failed' && gate) row.failureClass = classifyGate(gate);
    rows.push(row);
  };
  for (const s of stepsOf(input)) add(s.number, s.agent, s.name, takeGate(pool, s.number, s.agent), s.dependencies, s.status, true, s.gatePath);
  // Gates the plan does not list still prove work was done: show them (named after the agent).
  for (const g of pool) add(g.number, g.gate.agent, g.gate.agent, g, [], null, false);
  // Likewise an interrupted step the plan does not list (or there is no plan).
  for (const r of reasoning) {
    if (!decided.has(r.number) && !rows.some((x) => x.key === r.number)) add(r.number, r.agent, r.agent, null, [], null, false);
  }
  rows.sort((a, b) => compareSteps(a.key, b.key));
  // Cut-off gates: passed when the rest of the disk proves it, and the warning says which proof.
  const cutOff = new Map(input.gates.filter((g) => g.cutOff).map((g) => [g.gate, g.cutOff!]));
  for (const r of rows) {
    const note = r.gate ? cutOff.get(r.gate) : undefined;
    if (!r.gate || note === undefined) continue;
    const proof = cutOffProof(r, rows, input.artifactsOnDisk ?? []);
    warnings.push({ source: r.gate.file, message: cutOffWarning(note, proof, r.gate.cutVerdict) });
    if (proof.length === 0) continue;
    r.gate = { ...r.gate, passed: true, provenBy: proof };
    r.status = 'done';
  }

  if (!plan && !def) warnings.push({ source: `plan-${id}.json`, message: 'no plan and no workflow file found; steps come from the gate files only and the next step is unknown past them — ask the planner to recreate the plan' });
  for (const r of rows) {
    if (r.planStatus === 'completed' && r.status !== 'done' && r.status !== 'skipped') {
      warnings.push({ source: r.gate?.file ?? `plan-${id}.json`, message: `the plan says step ${r.number} (${r.agent}) is completed, but its gate is ${r.gate ? r.status : 'missing'}; the gate decides — re-run the step` });
    }
  }

  const passed = new Set(rows.filter((r) => r.gate?.passed).map((r) => r.key));
  const lastPassedKey = [...passed].sort(compareSteps).at(-1) ?? null;
  const known = new Set(rows.map((r) => r.key));
  const nextRow = rows.find(
    (r) =>
      (r.inPlan || (!plan && !def)) &&
      (lastPassedKey === null || compareSteps(r.key, lastPassedKey) > 0) &&
      r.status !== 'done' &&
      r.status !== 'skipped' &&
      r.dependencies.every((d) => passed.has(d)),
  );
  for (const r of rows) {
    for (const d of r.dependencies) {
      if (!known.has(d)) warnings.push({ source: `plan-${id}.json`, message: `step ${r.number} depends on ${d}, which is not a step of this workflow; it can never be satisfied — fix the plan` });
    }
  }

  const steps: GateStep[] = rows.map(({ key: _k, inPlan: _p, ...s }) => ({ ...s, dependencies: s.dependencies.map((d) => (known.has(d) ? displayStep(d) : d)) }));
  return {
    id,
    name: plan?.name ?? def?.name ?? id,
    workflowFile: def?.file ?? null,
    planStatus: plan?.status ?? null,
    steps,
    lastPassed: lastPassedKey === null ? null : displayStep(lastPassedKey),
    next: nextRow ? { number: nextRow.number, agent: nextRow.agent, name: nextRow.name } : null,
    missingArtifacts: input.missingArtifacts,
    failedValidations: steps.filter((s) => s.status === 'failed' && s.gate).map((s) => ({ step: s.number, errors: s.gate!.errors, class: s.failureClass! })),
    interrupted: rows.filter((r) => !r.gate && thought.has(r.key) && !decided.has(r.key)).map((r) => r.number),
    memory: input.memory,
    warnings,
  };
}
