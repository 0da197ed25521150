import type { WorkspaceState } from '../types.js';

// When to rewrite RESUME.md (DOMAIN.md section 6: "at session end and at milestones"; seed
// 000_…: "at least once at the end of every batch"): a batch completes, or the phase changes.
// The control room and the supervisor call this with the state before and after a change.

// Only forward progress counts: a phase going back (an artifact moved away by a git checkout
// or an editor's rename, a directory deleted) is not a milestone, and rewriting the letter
// then would record a false state.
const rank = (phase: number | null): number => (phase === null ? Infinity : phase);

export function milestoneReached(prev: WorkspaceState, next: WorkspaceState): string | null {
  if (rank(next.currentPhase) < rank(prev.currentPhase)) return null;
  if (prev.currentPhase !== next.currentPhase) {
    const to = next.currentPhase === null ? 'every phase done' : `Phase ${next.currentPhase}`;
    return `phase changed: ${prev.currentPhase === null ? 'done' : `Phase ${prev.currentPhase}`} → ${to}`;
  }
  const before = new Map(prev.batches.map((b) => [b.id, b.status]));
  const completed = next.batches.filter((b) => b.status === 'done' && before.has(b.id) && before.get(b.id) !== 'done');
  if (completed.length) return `${completed.map((b) => (b.id === null ? 'the unbatched chapters' : `Batch ${b.id}`)).join(', ')} complete`;
  return null;
}
