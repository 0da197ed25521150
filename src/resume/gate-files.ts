import { ARTIFACTS_DIR } from '../gates/plan.js';
import { REASONING_DIR } from '../gates/reasoning.js';
import { GATES_DIR, MEMORY_DIR } from '../gates/scan.js';
import { WORKFLOWS_DIR } from '../gates/workflow-file.js';

// "Important files" of a gate-file workflow's letter (issue 18 item 4): where the workflow's
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
