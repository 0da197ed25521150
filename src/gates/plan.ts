import { existsSync } from 'node:fs';
import { basename, isAbsolute, join, relative } from 'node:path';
import { sanitizeLine } from '../text/sanitize.js';
import type { Warning } from '../types.js';
import { compareSteps, stepKey } from './gate-file.js';
import { isRecord, readJson, str } from './read-json.js';
import type { Plan, PlanStep } from './types.js';
import type { WorkflowDef } from './workflow-file.js';

// The plan (docs/domain.md, Workflow gate files): `plan-{id}.json` with `steps[]` (snake_case:
// `step_number`, `agent`, `dependencies`), or hierarchical with `phases[].phase_plan_path`
// pointing to phase plans in camelCase (`metadata.phaseId`, `tasks[].taskId`,
// `assignedAgent`). Both become one flat, numerically sorted list of PlanStep.

export const ARTIFACTS_DIR = '.claude/context/artifacts';

const text = (v: unknown): string => sanitizeLine(str(v) ?? '');

/** Fields that name the workflow step a step, a task or a whole phase plan belongs to. */
const STEP_FIELDS = ['step_number', 'stepNumber', 'step', 'workflow_step', 'workflowStep', 'step_id', 'stepId', 'parent_step', 'parentStep'] as const;

/** The workflow step an object names (`"step-4"`, `4`, `"04.5"`), or null. */
export function namedStep(o: Record<string, unknown>): string | null {
  for (const f of STEP_FIELDS) if (o[f] !== undefined && stepKey(o[f]) !== null) return stepKey(o[f]);
  return null;
}

/** How a task id names a workflow step: `step-4`, `step_4`, `Step 4`, `s4`, `4`, `04.5`. */
const STEP_ID = /^\s*(?:step|s)?[-_ ]?(\d+(?:\.\d+)?)\s*$/i;

/**
 * The workflow step a task id names (agent-studio's phase plans write
 * `taskId: "step-4"`), or one of the workflow file's named step ids; null for ids like
 * `task-1-2` or `P1-T2`, which name no step.
 */
export function taskStep(taskId: string | null, named: ReadonlyMap<string, string>): string | null {
  if (taskId === null) return null;
  const m = STEP_ID.exec(taskId);
  if (m) return stepKey(m[1]);
  return named.get(taskId.trim().toLowerCase()) ?? null;
}

/** A plan step, and whether it is a phase-plan task folded into a workflow step. */
type Read = PlanStep & { folded: boolean };

/**
 * One step or task, whichever case it is written in. `step` is the workflow step its phase
 * plan belongs to, if the plans say; `index` places a task nothing numbers.
 */
function toStep(raw: Record<string, unknown>, index: number, phase: string | null, step: string | null | undefined, ids: Map<string, string>, named: ReadonlyMap<string, string>): Read {
  const taskId = str(raw.taskId) ?? str(raw.task_id) ?? str(raw.id);
  const own = namedStep(raw);
  const id = own !== null ? (str(raw.step_number ?? raw.stepNumber ?? raw.step) ?? taskId) : taskId;
  // A step number may be `4`, `"04.5"` or `"step-4"`; a task id names a step only in a step's
  // shape — `task-1-2` must not become step 2. A task of a phase plan that belongs to
  // workflow step 4 is part of step 4, not a step of its own; a task whose
  // id is `step-4` is step 4 itself.
  const resolved = own ?? step ?? taskStep(taskId, named);
  // A task id like `task-a` or `P1-T2` has no step number: place it by phase and position.
  const number = resolved ?? (phase !== null ? `${phase}.${index + 1}` : String(index));
  for (const k of [id, taskId]) if (k) ids.set(k, number);
  const deps = Array.isArray(raw.dependencies) ? raw.dependencies : Array.isArray(raw.dependsOn) ? raw.dependsOn : [];
  return {
    number,
    name: text(raw.name ?? raw.title ?? raw.description ?? id),
    agent: text(raw.agent ?? raw.assignedAgent ?? raw.assigned_agent),
    // Resolved to keys after all steps are known (a dependency may name a taskId).
    dependencies: deps.map((d) => str(d) ?? '').filter(Boolean),
    status: str(raw.status),
    // `step` is undefined for the top plan's own steps: only phase-plan tasks fold.
    folded: step !== undefined && resolved !== null,
  };
}

/** The status of a step made of tasks: every task completed, any blocked, any started. */
function foldStatus(list: (string | null)[]): string | null {
  // One task, or all alike: its status as written (phase plans also write `failed`).
  if (list.every((x) => x === list[0])) return list[0];
  if (list.includes('failed')) return 'failed';
  if (list.includes('blocked')) return 'blocked';
  if (list.some((x) => x === 'in_progress' || x === 'completed')) return 'in_progress';
  return list.every((x) => x === null) ? null : 'pending';
}

/**
 * Tasks of phase plans that belong to one workflow step become that step: the top plan's
 * step when it lists it (its name, agent and status stand), else one step named after the
 * phase plan. Gates are written per workflow step (`04-developer.json`), never per task.
 */
function foldTasks(steps: Read[], phaseNames: Map<string, string | null>): PlanStep[] {
  const out: PlanStep[] = [];
  const byNumber = new Map<string, PlanStep>();
  for (const s of steps.filter((x) => !x.folded)) {
    const { folded: _f, ...step } = s;
    out.push(step);
    if (!byNumber.has(s.number)) byNumber.set(s.number, step);
  }
  const groups = new Map<string, Read[]>();
  for (const s of steps.filter((x) => x.folded)) groups.set(s.number, [...(groups.get(s.number) ?? []), s]);
  for (const [number, tasks] of groups) {
    const deps = [...new Set(tasks.flatMap((t) => t.dependencies))];
    const names = tasks.map((t) => t.name);
    const top = byNumber.get(number);
    if (top) {
      top.tasks = [...(top.tasks ?? []), ...names];
      top.dependencies = [...new Set([...top.dependencies, ...deps])];
      top.status ??= foldStatus(tasks.map((t) => t.status));
      continue;
    }
    const name = phaseNames.get(number) ?? (tasks.length === 1 ? names[0] : `${names[0]} (+${tasks.length - 1} tasks)`);
    out.push({ number, name, agent: tasks[0].agent, dependencies: deps, status: foldStatus(tasks.map((t) => t.status)), tasks: names });
  }
  return out;
}

/** Where a phase plan is: as written, under the workspace, under artifacts/, or by basename. */
function locate(root: string, p: string): string | null {
  const tries = isAbsolute(p) ? [p, join(root, ARTIFACTS_DIR, basename(p))] : [join(root, p), join(root, ARTIFACTS_DIR, p), join(root, ARTIFACTS_DIR, basename(p))];
  return tries.find((t) => existsSync(t)) ?? null;
}

/**
 * The plan and its phase plans, as one list of steps. `pickWorkflow` answers which workflow
 * file the run follows once the top plan has said (its `workflow` field): its named step ids
 * are task ids too.
 */
export async function readPlan(root: string, id: string, phaseFiles: string[], warnings: Warning[], pickWorkflow: (named: string | null) => WorkflowDef | null = () => null): Promise<Plan | null> {
  const rel = `${ARTIFACTS_DIR}/plan-${id}.json`;
  const top = await readJson(join(root, rel));
  const steps: Read[] = [];
  const files: string[] = [];
  const ids = new Map<string, string>();
  let name: string | null = null;
  let status: string | null = null;
  let workflow: string | null = null;
  // Each phase plan the top plan names, with the workflow step it says the phase belongs to.
  const phasePaths: { path: string; step: string | null }[] = [];
  if (top.kind === 'ok' && isRecord(top.value)) {
    files.push(rel);
    name = str(top.value.name) !== null ? text(top.value.name) : null;
    status = str(top.value.status);
    workflow = str(top.value.workflow) ?? str(top.value.workflow_name) ?? str(top.value.workflowName);
  }
  const def = pickWorkflow(workflow);
  const named = new Map((def?.steps ?? []).filter((s) => s.id !== null).map((s) => [s.id!.toLowerCase(), s.key]));
  if (top.kind === 'ok' && isRecord(top.value)) {
    const list = Array.isArray(top.value.steps) ? top.value.steps : Array.isArray(top.value.tasks) ? top.value.tasks : [];
    list.forEach((s, i) => isRecord(s) && steps.push(toStep(s, i, null, undefined, ids, named)));
    // A phase entry, or a step, that points to a phase plan: `{ step: "step-4", phase_plan_path }`.
    for (const ph of [...(Array.isArray(top.value.phases) ? top.value.phases : []), ...list]) {
      const p = isRecord(ph) ? str(ph.phase_plan_path) ?? str(ph.phasePlanPath) : null;
      if (p && isRecord(ph)) phasePaths.push({ path: p, step: namedStep(ph) });
    }
  } else if (top.kind !== 'missing') {
    warnings.push({ source: rel, message: `plan ${top.kind === 'ok' ? 'is not a JSON object' : `cannot be read (${top.kind}: ${'message' in top ? top.message : ''})`}; steps come from the gate files only — ask the planner to rewrite the plan` });
  }
  // Phase plans named by the top plan, plus any `plan-{id}-phase-{n}.json` it does not name.
  const located = new Map<string, string | null>();
  for (const { path: p, step } of phasePaths) {
    const abs = locate(root, p);
    if (!abs) warnings.push({ source: rel, message: `phase plan ${sanitizeLine(p)} is listed but not found on disk; its tasks are missing from the plan` });
    else {
      if (isAbsolute(p) && abs !== p) warnings.push({ source: rel, message: `phase plan path ${sanitizeLine(p)} is from another machine; read ${relative(root, abs)} instead` });
      located.set(abs, located.get(abs) ?? step);
    }
  }
  for (const f of phaseFiles) if (!located.has(join(root, ARTIFACTS_DIR, f))) located.set(join(root, ARTIFACTS_DIR, f), null);
  const phaseNames = new Map<string, string | null>();
  for (const abs of [...located.keys()].sort()) {
    const prel = relative(root, abs).split('\\').join('/');
    const ph = await readJson(abs);
    if (ph.kind !== 'ok' || !isRecord(ph.value)) {
      warnings.push({ source: prel, message: `phase plan cannot be read (${ph.kind}); its tasks are missing from the plan` });
      continue;
    }
    files.push(prel);
    const meta = isRecord(ph.value.metadata) ? ph.value.metadata : {};
    const phase = stepKey(meta.phaseId ?? meta.phase_id ?? ph.value.phaseId ?? /-phase-(\d+)\.json$/.exec(abs)?.[1]);
    // The workflow step of the whole phase plan: its metadata, its top level, or the top plan's entry.
    const step = namedStep(meta) ?? namedStep(ph.value) ?? located.get(abs) ?? null;
    const title = str(meta.name) ?? str(meta.title) ?? str(ph.value.name) ?? str(ph.value.title);
    if (step !== null && title !== null && !phaseNames.has(step)) phaseNames.set(step, text(title));
    const list = Array.isArray(ph.value.tasks) ? ph.value.tasks : Array.isArray(ph.value.steps) ? ph.value.steps : [];
    list.forEach((t, i) => isRecord(t) && steps.push(toStep(t, i, phase, step, ids, named)));
  }
  if (files.length === 0) return null;
  for (const s of steps) s.dependencies = s.dependencies.map((d) => ids.get(d) ?? stepKey(d) ?? d);
  const folded = foldTasks(steps, phaseNames);
  // A task's dependency on a task of its own step is inside the step, not on it.
  for (const s of folded) s.dependencies = s.dependencies.filter((d) => d !== s.number);
  folded.sort((a, b) => compareSteps(a.number, b.number));
  return { id, name, status, workflow: workflow !== null ? sanitizeLine(workflow) : null, steps: folded, files };
}
