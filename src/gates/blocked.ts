import type { CellStatus } from '../types.js';

// What a gate cell waits on ("the control room shows a workflow's steps as
// cells with the same views"). The book fills `blockedBy` in reconcile.ts (markBlocked) from
// the pipeline's steps; a gate workflow has its own dependencies in its plan, so they are
// followed here, per workflow. Pure: step ids in, step ids out.

const BLOCKING: ReadonlySet<CellStatus> = new Set(['failed', 'needs_human']);

/**
 * For each unfinished step, the failed / needs-human steps it transitively waits on, in the
 * order of `order`. `dependsOn` maps a step id to the step ids it depends on; ids with no
 * status (a dependency that is not a step of the workflow) block nothing. Cycles end.
 */
export function blockersOf(order: readonly string[], dependsOn: ReadonlyMap<string, readonly string[]>, status: ReadonlyMap<string, CellStatus>): Map<string, string[]> {
  const rank = new Map(order.map((id, i) => [id, i]));
  const memo = new Map<string, Set<string>>();
  const walk = (id: string, seen: Set<string>): Set<string> => {
    const hit = memo.get(id);
    if (hit) return hit;
    const out = new Set<string>();
    if (seen.has(id)) return out;
    seen.add(id);
    for (const dep of dependsOn.get(id) ?? []) {
      const s = status.get(dep);
      if (s === undefined) continue;
      if (BLOCKING.has(s)) out.add(dep);
      for (const b of walk(dep, seen)) out.add(b);
    }
    seen.delete(id);
    memo.set(id, out);
    return out;
  };
  const result = new Map<string, string[]>();
  for (const id of order) {
    if (status.get(id) === 'done') continue;
    result.set(id, [...walk(id, new Set())].sort((a, b) => (rank.get(a) ?? 0) - (rank.get(b) ?? 0)));
  }
  return result;
}
