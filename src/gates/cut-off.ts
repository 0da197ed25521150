import { compareSteps, displayStep } from './gate-file.js';
import type { RegistryArtifact } from './registry.js';
import type { Gate } from './types.js';

// A gate cut off mid-write (the shipped writer is not atomic, docs/domain.md, Workflow gate files) proves
// nothing by itself, but the step may still be proven done by the rest of the disk: the registry lists an artifact of the step and it is on disk, or a later step's
// gate passed (steps run in order: a later pass was validated on top of this one). The
// plan's `completed` is only a claim (the gate is the proof, workflow.ts): it is named with
// disk proof, never counted alone. A cut-off gate whose first bytes say "fail" stays unproven.

export interface CutOffRow {
  key: string;
  planStatus: string | null;
  gate: Gate | null;
}

/** The sentences that prove a cut-off step done, or [] when nothing on disk does. */
export function cutOffProof(row: CutOffRow, rows: readonly CutOffRow[], artifacts: readonly RegistryArtifact[]): string[] {
  if (row.gate?.cutVerdict === false) return [];
  const disk: string[] = [];
  for (const a of artifacts) if (a.step === row.key) disk.push(`the registry lists its artifact "${a.name}" and ${a.path} is on disk`);
  const later = rows
    .filter((r) => compareSteps(r.key, row.key) > 0 && r.gate?.passed && r.gate.shape !== 'truncated')
    .sort((a, b) => compareSteps(a.key, b.key))[0];
  if (later) disk.push(`a later step, ${displayStep(later.key)}, passed its gate`);
  if (disk.length === 0) return [];
  return row.planStatus === 'completed' ? [...disk, 'the plan says completed'] : disk;
}

/** The warning for a cut-off gate: counted as passed (which proof) or not passed (what to do). */
export function cutOffWarning(note: string, proof: readonly string[], verdict: boolean | null | undefined): string {
  if (proof.length) return `gate is cut off mid-write (${note}); counted as passed on other proof: ${proof.join('; ')}`;
  const said = verdict === false ? '; its first bytes say it failed' : '';
  return `gate is cut off mid-write (${note})${said}; step treated as not passed — re-run its validation`;
}
