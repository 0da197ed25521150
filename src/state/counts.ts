import type { WorkspaceState } from '../types.js';

// The tally of a workspace's cells, as the header, `checkroom status` and its `--json` show it.

export function counts(s: WorkspaceState) {
  // One pass, not one filter per status: at 50k cells six passes were 3% of `status --json`.
  const by: Record<string, number> = { done: 0, partial: 0, failed: 0, needs_human: 0, running: 0, not_started: 0 };
  for (const c of s.cells) by[c.status] = (by[c.status] ?? 0) + 1;
  return {
    total: s.cells.length,
    done: by.done,
    partial: by.partial,
    failed: by.failed,
    needsHuman: by.needs_human,
    running: by.running,
    notStarted: by.not_started,
    discrepancies: s.discrepancies.length,
    suspects: s.suspects.length,
  };
}
