import type { WorkspaceState } from '../types.js';
import { ARTIFACTS_DIR } from '../gates/plan.js';
import { REASONING_DIR } from '../gates/reasoning.js';
import { GATES_DIR, MEMORY_DIR } from '../gates/scan.js';
import { WORKFLOWS_DIR } from '../gates/workflow-file.js';

// "Important files" of a gate-file workflow's letter: where the workflow's
// own records are, each run's gates and reasoning named by its id — no `{unit}` template and
// no checkpoint.md, which this layout does not have.

export function gateLetterFiles(root: string, ids: readonly string[]): string[] {
  const out = [`- Workflow files: ${root}/${WORKFLOWS_DIR}/`];
  for (const id of ids) {
    out.push(`- Plan of ${id}: ${root}/${ARTIFACTS_DIR}/plan-${id}.json (and its phase plans)`);
    out.push(`- Gates of ${id}: ${root}/${GATES_DIR}/${id}/`);
    out.push(`- Reasoning of ${id}: ${root}/${REASONING_DIR}/${id}/`);
  }
  out.push(`- Artifacts and registries: ${root}/${ARTIFACTS_DIR}/`, `- Memory: ${root}/${MEMORY_DIR}/`);
  return out;
}

const WORD: Record<string, string> = { done: 'passed', failed: 'failed', partial: 'half-done', running: 'running', needs_human: 'needs a human', not_started: 'not started' };

/**
 * "Steps of <id>": every step of each workflow with its status and what it needs, so the next session sees the whole workflow, not only what is unfinished.
 */
export function gateLetterSteps(state: WorkspaceState): string[] {
  const number = (id: string): string => id.replace(/^s(?=\d)/, '');
  return state.units.map((u) => {
    const steps = state.pipeline.steps.map((def) => {
      const c = state.cells.find((x) => x.unit === u && x.step === def.id);
      const needs = def.dependsOn.length ? ` (needs ${def.dependsOn.map(number).join(', ')})` : '';
      return `${number(def.id)} ${def.agent ?? ''} ${WORD[c?.status ?? 'not_started']}${needs}`.replace(/ {2,}/g, ' ');
    });
    return `- Steps of ${u}: ${steps.join('; ')}`;
  });
}
