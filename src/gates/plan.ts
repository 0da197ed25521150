import { existsSync } from 'node:fs';
import { basename, isAbsolute, join, relative } from 'node:path';
import { sanitizeLine } from '../sanitize.js';
import type { Warning } from '../types.js';
import { compareSteps, stepKey } from './gate-file.js';
import { isRecord, readJson, str } from './read-json.js';
import type { Plan, PlanStep } from './types.js';

// The plan (DOMAIN.md section 7): `plan-{id}.json` with `steps[]` (snake_case:
// `step_number`, `agent`, `dependencies`), or hierarchical with `phases[].phase_plan_path`
// pointing to phase plans in camelCase (`metadata.phaseId`, `tasks[].taskId`,
// `assignedAgent`). Both become one flat, numerically sorted list of PlanStep.

export const ARTIFACTS_DIR = '.claude/context/artifacts';

const text = (v: unknown): string => sanitizeLine(str(v) ?? '');

/** One step or task, whichever case it is written in; `index` numbers tasks without a number. */
function toStep(raw: Record<string, unknown>, index: number, phase: string | null, ids: Map<string, string>): PlanStep {
  const stepNo = raw.step_number ?? raw.stepNumber ?? raw.step;
  const taskId = str(raw.taskId) ?? str(raw.task_id) ?? str(raw.id);
  const id = str(stepNo) ?? taskId;
  // A step number may be `4`, `"04.5"` or `"step-4"`; a task id is a number only when it is
  // plainly one — `task-1-2` must not become step 2.
  let number = stepNo !== undefined ? stepKey(stepNo) : /^\s*\d+(\.\d+)?\s*$/.test(taskId ?? '') ? stepKey(taskId) : null;
  // A task id like `task-a` or `P1-T2` has no step number: place it by phase and position.
  if (number === null) number = phase !== null ? `${phase}.${index + 1}` : String(index);
  for (const k of [id, taskId]) if (k) ids.set(k, number);
  const deps = Array.isArray(raw.dependencies) ? raw.dependencies : Array.isArray(raw.dependsOn) ? raw.dependsOn : [];
  return {
    number,
    name: text(raw.name ?? raw.title ?? raw.description ?? id),
    agent: text(raw.agent ?? raw.assignedAgent ?? raw.assigned_agent),
    // Resolved to keys after all steps are known (a dependency may name a taskId).
    dependencies: deps.map((d) => str(d) ?? '').filter(Boolean),
    status: str(raw.status),
  };
}

/** Where a phase plan is: as written, under the workspace, under artifacts/, or by basename. */
function locate(root: string, p: string): string | null {
  const tries = isAbsolute(p) ? [p, join(root, ARTIFACTS_DIR, basename(p))] : [join(root, p), join(root, ARTIFACTS_DIR, p), join(root, ARTIFACTS_DIR, basename(p))];
  return tries.find((t) => existsSync(t)) ?? null;
}

export async function readPlan(root: string, id: string, phaseFiles: string[], warnings: Warning[]): Promise<Plan | null> {
  const rel = `${ARTIFACTS_DIR}/plan-${id}.json`;
  const top = await readJson(join(root, rel));
  const steps: PlanStep[] = [];
  const files: string[] = [];
  const ids = new Map<string, string>();
  let name: string | null = null;
  let status: string | null = null;
  const phasePaths: string[] = [];
  if (top.kind === 'ok' && isRecord(top.value)) {
    files.push(rel);
    name = str(top.value.name) !== null ? text(top.value.name) : null;
    status = str(top.value.status);
    const list = Array.isArray(top.value.steps) ? top.value.steps : Array.isArray(top.value.tasks) ? top.value.tasks : [];
    list.forEach((s, i) => isRecord(s) && steps.push(toStep(s, i, null, ids)));
    if (Array.isArray(top.value.phases)) {
      for (const ph of top.value.phases) {
        const p = isRecord(ph) ? str(ph.phase_plan_path) ?? str(ph.phasePlanPath) : null;
        if (p) phasePaths.push(p);
      }
    }
  } else if (top.kind !== 'missing') {
    warnings.push({ source: rel, message: `plan ${top.kind === 'ok' ? 'is not a JSON object' : `cannot be read (${top.kind}: ${'message' in top ? top.message : ''})`}; steps come from the gate files only — ask the planner to rewrite the plan` });
  }
  // Phase plans named by the top plan, plus any `plan-{id}-phase-{n}.json` it does not name.
  const located = new Set<string>();
  for (const p of phasePaths) {
    const abs = locate(root, p);
    if (!abs) warnings.push({ source: rel, message: `phase plan ${sanitizeLine(p)} is listed but not found on disk; its tasks are missing from the plan` });
    else {
      if (isAbsolute(p) && abs !== p) warnings.push({ source: rel, message: `phase plan path ${sanitizeLine(p)} is from another machine; read ${relative(root, abs)} instead` });
      located.add(abs);
    }
  }
  for (const f of phaseFiles) located.add(join(root, ARTIFACTS_DIR, f));
  for (const abs of [...located].sort()) {
    const prel = relative(root, abs).split('\\').join('/');
    const ph = await readJson(abs);
    if (ph.kind !== 'ok' || !isRecord(ph.value)) {
      warnings.push({ source: prel, message: `phase plan cannot be read (${ph.kind}); its tasks are missing from the plan` });
      continue;
    }
    files.push(prel);
    const meta = isRecord(ph.value.metadata) ? ph.value.metadata : {};
    const phase = stepKey(meta.phaseId ?? meta.phase_id ?? ph.value.phaseId ?? /-phase-(\d+)\.json$/.exec(abs)?.[1]);
    const list = Array.isArray(ph.value.tasks) ? ph.value.tasks : Array.isArray(ph.value.steps) ? ph.value.steps : [];
    list.forEach((t, i) => isRecord(t) && steps.push(toStep(t, i, phase, ids)));
  }
  if (files.length === 0) return null;
  for (const s of steps) s.dependencies = s.dependencies.map((d) => ids.get(d) ?? stepKey(d) ?? d);
  steps.sort((a, b) => compareSteps(a.number, b.number));
  return { id, name, status, steps, files };
}
