import type { WorkspaceConfig } from '../pipeline/config/types.js';
import type { Cell, StepDef, WorkspaceState } from '../types.js';
import { sanitizeLine } from '../text/sanitize.js';
import { noStepWhy, targetOf } from '../run/attempt/launch-spec.js';
import { SupervisorError } from '../run/supervisor/types.js';

// What `checkroom run <unit> <step>` must refuse before it opens the supervisor, so that a
// refusal writes nothing: no journal entry, no checkpoint rewrite, no backup, no agent.
// Checked in this order (each one a usage problem, exit 2): the step exists; the unit is one
// of the pipeline's units (a typo such as ch010 or an unknown ch99 used to launch an agent
// and rewrite checkpoint.md around an invented row); its agent is configured; then, unless
// --force: every dependency of the step is done for that unit, and the step itself is not
// already done (docs/domain.md, The reference pipeline: the marker is the proof — redoing a done step silently
// backs up trustworthy work that later steps were built on).

/** Up to 8 units as is; more as the first three … the last two, with the count. */
export const briefUnits = (units: readonly string[]): string =>
  units.length === 0 ? '(none found)' : units.length <= 8 ? units.join(', ') : `${units.slice(0, 3).join(', ')}, …, ${units.slice(-2).join(', ')} (${units.length} units)`;

/** One character added or dropped (ch010 for ch10, ch1 for ch01), or another case. Not a
 *  substitution: in numbered units every neighbour is one (ch03 is not a typo of ch02). */
const nearMiss = (typed: string, known: string): boolean => {
  const [a, b] = [typed.toLowerCase(), known.toLowerCase()];
  if (a === b) return typed !== known;
  if (Math.abs(a.length - b.length) !== 1) return false;
  const [long, short] = a.length > b.length ? [a, b] : [b, a];
  let i = 0;
  while (i < short.length && long[i] === short[i]) i++;
  return long.slice(i + 1) === short.slice(i);
};

const unpadded = (u: string): string => u.toLowerCase().replace(/\d+/g, (d) => String(Number(d)));

const unknownUnit = (unit: string, units: readonly string[], listed: boolean): string => {
  // Same number with other zero padding (ch010, ch10) first: the likeliest meaning.
  const samePadded = units.filter((u) => unpadded(u) === unpadded(unit));
  const near = (samePadded.length ? samePadded : units.filter((u) => nearMiss(unit, u))).slice(0, 3);
  const hint = near.length
    ? `; did you mean ${near.join(' or ')}?`
    : listed
      ? '; a new unit goes in units.list in checkroom.yaml'
      : '; a new unit needs a row in checkpoint.md or a batch in checkroom.yaml';
  return `"${sanitizeLine(unit).slice(0, 60)}" is not a unit of this pipeline; units: ${briefUnits(units)}${hint}`;
};

/** Steps that depend on `id`, directly or through other steps, in pipeline order. */
const laterSteps = (steps: readonly StepDef[], id: string): StepDef[] => {
  const after = new Set([id]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const s of steps) {
      if (!after.has(s.id) && s.dependsOn.some((d) => after.has(d))) {
        after.add(s.id);
        grew = true;
      }
    }
  }
  return steps.filter((s) => s.id !== id && after.has(s.id));
};

const proof = (step: StepDef, cell: Cell): string =>
  step.kind === 'entry' ? `its entry is in ${cell.path}` : `marker ${step.marker} is the last line of ${cell.path}`;

/**
 * Why `checkroom run <unit> <step>` must not launch, in words ending with what to do, or
 * null when it may. `state` is the workspace as loadWorkspace reads it (units from the
 * config list, batches, checkpoint rows and file names; cells as the disk proves them).
 */
export function refuseRun(root: string, config: WorkspaceConfig, state: WorkspaceState, unit: string, stepId: string, force: boolean): string | null {
  const steps = config.pipeline.steps;
  const step = steps.find((s) => s.id === stepId);
  // Same words as the launcher's own check (launch-spec.ts targetOf).
  if (!step) return noStepWhy(stepId, config);
  if (!state.units.includes(unit)) return unknownUnit(unit, state.units, config.pipeline.units.list !== undefined);
  try {
    targetOf(root, config, unit, stepId);
  } catch (err) {
    if (err instanceof SupervisorError) return err.message;
    throw err;
  }
  // Even with --force: what is under the step's name cannot be read, so it cannot be backed up.
  const own = state.cells.find((c) => c.unit === unit && c.step === stepId);
  if (own?.disk === 'unreadable') return `${unit} ${stepId} is not launched: ${own.path}: ${own.error ?? 'cannot be read'}; fix that first (checkroom backs a file up before a run and cannot here)`;
  if (force) return null;
  const cellOf = (id: string): Cell | undefined => state.cells.find((c) => c.unit === unit && c.step === id);
  const unmet = step.dependsOn.filter((d) => cellOf(d)?.disk !== 'done');
  if (unmet.length > 0) {
    const what = unmet.map((d) => `${d} (${cellOf(d)?.disk === 'partial' ? 'a file without its marker' : 'not done'})`).join(', ');
    return `${unit} ${stepId} depends on ${what}; run ${unmet.length === 1 ? 'it' : 'them'} first (checkroom run ${unit} ${unmet[0]}), or pass --force to launch anyway`;
  }
  const self = cellOf(stepId);
  if (self?.disk === 'done') {
    const built = laterSteps(steps, stepId).filter((s) => {
      const c = cellOf(s.id);
      return c !== undefined && c.disk !== 'missing';
    });
    const later = built.length ? `later steps built on it: ${built.map((s) => s.id).join(', ')}` : 'no later step is built on it yet';
    return `${unit} ${stepId} is already done (${proof(step, self)}); ${later}; pass --force to redo it${step.kind === 'file' ? ' (the current output is backed up first)' : ''}`;
  }
  return null;
}
