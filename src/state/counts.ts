import type { WorkspaceState } from '../types.js';

// The tally of a workspace's cells, as the header, `checkroom status` and its `--json` show it.

export function counts(s: WorkspaceState) {
  const by = (st: string) => s.cells.filter((c) => c.status === st).length;
  return {
    total: s.cells.length,
    done: by('done'),
    partial: by('partial'),
    failed: by('failed'),
    needsHuman: by('needs_human'),
    running: by('running'),
    notStarted: by('not_started'),
    discrepancies: s.discrepancies.length,
    suspects: s.suspects.length,
  };
}
