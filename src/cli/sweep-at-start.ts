import type { WorkspaceConfig } from '../pipeline/config/types.js';
import { atomicWriteDirs, describeSweep, sweepTempFiles } from '../fs/sweep-temp.js';
import { sanitizeLine } from '../text/sanitize.js';

// An instance that is about to write sweeps the temp files that killed
// atomic writes left behind, and says what it swept. Read-only instances never call this
// (they write nothing, deleting included).

/** Sweep the workspace's atomic-write directories; the sanitized line to show, or null. */
export async function sweepAtStart(root: string, config: WorkspaceConfig, units: readonly string[]): Promise<string | null> {
  const dirs = atomicWriteDirs(root, config.sources, config.pipeline.steps.map((s) => s.path), units);
  const line = describeSweep(await sweepTempFiles(root, dirs));
  return line === null ? null : sanitizeLine(line);
}
