import type { WorkspaceState } from '../types.js';

// When to rewrite RESUME.md (docs/domain.md, RESUME.md: "at session end and at milestones"; the
// source document: "at least once at the end of every batch"): a batch completes, or the phase changes.
// The control room and the supervisor call this with the state before and after a change.
//
// Only real forward progress counts. A phase going back (an artifact moved away by a git
// checkout or an editor's rename, a directory deleted) is not a milestone. Neither is a batch
// that did not exist before with the same chapters: an edited or half-written checkpoint.md
// can regroup rows (rows without a `### Batch` heading), and a letter rewritten from that
// would record a false state. Nor is anything while checkpoint.md has new parse warnings.

const rank = (phase: number | null): number => (phase === null ? Infinity : phase);

const checkpointWarnings = (s: WorkspaceState): number => s.warnings.filter((w) => w.line !== undefined).length;

export function milestoneReached(prev: WorkspaceState, next: WorkspaceState): string | null {
  if (checkpointWarnings(next) > checkpointWarnings(prev)) return null;
  if (rank(next.currentPhase) < rank(prev.currentPhase)) return null;
  if (prev.currentPhase !== next.currentPhase) {
    const to = next.currentPhase === null ? 'every phase done' : `Phase ${next.currentPhase}`;
    return `phase changed: ${prev.currentPhase === null ? 'done' : `Phase ${prev.currentPhase}`} → ${to}`;
  }
  const before = new Map(prev.batches.map((b) => [b.id, b]));
  const completed = next.batches.filter((b) => {
    const was = before.get(b.id);
    return b.status === 'done' && was !== undefined && was.status !== 'done' && was.units.join() === b.units.join();
  });
  if (completed.length) return `${completed.map((b) => (b.id === null ? 'the unbatched chapters' : `Batch ${b.id}`)).join(', ')} complete`;
  return null;
}
