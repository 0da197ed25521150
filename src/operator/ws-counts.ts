import type { Cell, CellStatus, WorkspaceState } from '../types.js';

// The tallies of a workspace's cells, kept by difference (per-change work
// O(changed)). The live model publishes a new cell array per change but keeps the cells of
// untouched units as the same objects (state/live-derive.ts): against the last array of the
// same length only the cells that are new objects are counted again. A cold state (the CLI)
// is one pass.

export interface CellTally {
  total: number;
  done: number;
  partial: number;
  failed: number;
  needsHuman: number;
  running: number;
  notStarted: number;
  /** Not done, and waiting on a failed or needs-human cell. */
  blocked: number;
}

const KEY: Record<CellStatus, keyof CellTally> = { done: 'done', partial: 'partial', failed: 'failed', needs_human: 'needsHuman', running: 'running', not_started: 'notStarted' };

const zero = (): CellTally => ({ total: 0, done: 0, partial: 0, failed: 0, needsHuman: 0, running: 0, notStarted: 0, blocked: 0 });

const add = (t: CellTally, c: Cell, by: 1 | -1): void => {
  t[KEY[c.status]] += by;
  if (c.status !== 'done' && c.blockedBy.length > 0) t.blocked += by;
};

function countAll(cells: readonly Cell[]): CellTally {
  const t = zero();
  t.total = cells.length;
  for (const c of cells) add(t, c, 1);
  return t;
}

let last: { cells: readonly Cell[]; tally: CellTally } | null = null;

/** The tally of these cells, moved by difference from the last array asked for when it can be. */
export function cellTally(cells: readonly Cell[]): CellTally {
  if (last?.cells === cells) return last.tally;
  let tally: CellTally;
  if (last && last.cells.length === cells.length) {
    tally = { ...last.tally };
    const before = last.cells;
    for (let i = 0; i < cells.length; i++) {
      const a = before[i];
      const b = cells[i];
      if (a === b) continue;
      add(tally, a, -1);
      add(tally, b, 1);
    }
  } else tally = countAll(cells);
  last = { cells, tally };
  return tally;
}

/** Every warning a surface lists: the workspace's and the todo table's (text `status` said "0 warnings" while the todo table had one). */
export const warningCount = (ws: Pick<WorkspaceState, 'warnings' | 'todos'>): number => ws.warnings.length + (ws.todos?.warnings.length ?? 0);
