import type { WorkspaceState } from '../types.js';

// The tally of a workspace's cells, as the header, `checkroom status` and its `--json` show it.
// One pass (it was six filters): the control socket counts on every answer (issue 10 item 4).

export function counts(s: WorkspaceState) {
  let done = 0;
  let partial = 0;
  let failed = 0;
  let needsHuman = 0;
  let running = 0;
  let notStarted = 0;
  for (const c of s.cells) {
    const st = c.status;
    if (st === 'done') done++;
    else if (st === 'partial') partial++;
    else if (st === 'failed') failed++;
    else if (st === 'needs_human') needsHuman++;
    else if (st === 'running') running++;
    else if (st === 'not_started') notStarted++;
  }
  return { total: s.cells.length, done, partial, failed, needsHuman, running, notStarted, discrepancies: s.discrepancies.length, suspects: s.suspects.length };
}
