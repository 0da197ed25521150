import { readFileSync } from 'node:fs';
import { loadWorkspace } from '../../src/workspace.js';

// The files both live children mark, one at a time: half-products (no marker yet), spread
// over the whole workspace. GAP_MS apart, longer than the live view's batchMs: each change
// is measured alone, as an agent's marker arrives, not as part of a burst (a burst is
// throttled to one update per batchMs on purpose).

export const GAP_MS = 60;

export async function markerTargetsOf(dir: string, n: number): Promise<{ path: string; marker: string }[]> {
  const s = await loadWorkspace(dir);
  const partial = s.cells.filter((c) => c.status === 'partial' && c.path.endsWith('.md'));
  const step = Math.max(1, Math.floor(partial.length / n));
  return partial
    .filter((_, i) => i % step === 0)
    .slice(0, n)
    .map((c) => ({ path: c.path, marker: s.pipeline.steps.find((x) => x.id === c.step)!.marker! }));
}

export const readTargets = (file: string): { path: string; marker: string }[] => JSON.parse(readFileSync(file, 'utf8'));
