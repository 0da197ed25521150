import type { PhaseProgress, WorkspaceState } from '../types.js';
import type { Regression } from './where-cells.js';

// Where the work stopped (state/where.ts) in words, one wording for every surface (header, `status`, the recover
// report, RESUME.md): where the work stopped, and the regressions listed as such. Workspace
// text (unit and step ids) is passed through `clean`, the surface's own escaping.

/** The phase and batch where the work stopped; a state built without it falls back to the first not done. */
export function stopOfState(s: WorkspaceState): { phase: PhaseProgress | undefined; batch: number | null } {
  const at = s.stoppedAt;
  const id = at ? at.phase : s.currentPhase;
  return { phase: s.phases.find((p) => p.id === id), batch: at ? at.batch : s.currentBatch };
}

/** Whether a regression lies before where the work stopped (an earlier phase, or an earlier batch of it). */
function earlier(s: WorkspaceState, r: Regression, phaseOf: ReadonlyMap<string, number>): boolean {
  const at = s.stoppedAt;
  if (!at || at.phase === null) return false;
  const ph = phaseOf.get(r.step) ?? 0;
  if (ph !== at.phase) return ph < at.phase;
  return r.batch !== null && at.batch !== null && r.batch < at.batch;
}

const LOST: Record<Regression['lost'], string> = { marker: 'marker lost', file: 'file gone', entry: 'entry gone' };

/** "ch01 draft, ch02 review (marker lost)": grouped by what was lost, at most `max` named. */
export function regressionWords(regs: readonly Regression[], clean: (t: string) => string, max = 6): string {
  const groups: string[] = [];
  let named = 0;
  for (const lost of ['marker', 'file', 'entry'] as const) {
    const of = regs.filter((r) => r.lost === lost);
    if (!of.length) continue;
    const shown = of.slice(0, Math.max(1, max - named));
    named += shown.length;
    groups.push(`${shown.map((r) => `${clean(r.unit)} ${clean(r.step)}`).join(', ')}${of.length > shown.length ? ` and ${of.length - shown.length} more` : ''} (${LOST[lost]})`);
  }
  return groups.join('; ');
}

/** Whether every regression lies before where the work stopped (then they are "in earlier batches"). */
export function regressionsEarlier(s: WorkspaceState): boolean {
  const phaseOf = new Map(s.pipeline.steps.map((st) => [st.id, st.phase]));
  return (s.regressions ?? []).every((r) => earlier(s, r, phaseOf));
}

/** "regressions in earlier batches: ch01 draft, ch02 review (marker lost)"; `earlier` false: "regressions: …". */
export const regressionsText = (regs: readonly Regression[], earlierOnly: boolean, clean: (t: string) => string, max = 6): string =>
  `${earlierOnly ? 'regressions in earlier batches' : 'regressions'}: ${regressionWords(regs, clean, max)}`;

/** The line for a state, or null when it has no regressions. */
export function regressionsLine(s: WorkspaceState, clean: (t: string) => string, max = 6): string | null {
  const regs = s.regressions ?? [];
  return regs.length ? regressionsText(regs, regressionsEarlier(s), clean, max) : null;
}
