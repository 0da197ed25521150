import { loadWorkspace } from '../../src/workspace.js';

// The half-products whose cells the control room shows on its first screen (the matrix starts
// at the first unit; 120×40 shows about 25 rows): a marker on one of them must change a glyph
// the operator can see (issue 18 item 6), not only the state.

export interface Target {
  path: string;
  unit: string;
  marker: string;
}

export async function visibleTargets(dir: string, units: number): Promise<Target[]> {
  const s = await loadWorkspace(dir);
  const shown = new Set(s.units.slice(0, units));
  return s.cells
    .filter((c) => shown.has(c.unit) && c.status === 'partial' && c.path.endsWith('.md'))
    .map((c) => ({ path: c.path, unit: c.unit, marker: s.pipeline.steps.find((x) => x.id === c.step)!.marker! }));
}
