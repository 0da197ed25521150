import { checkLive } from './liveness.js';
import type { ProcSource } from './proc-source.js';
import { liveWhy } from './words.js';

// Launches and autopilot's redo ask too: an output held open for writing
// by any process is not backed up and relaunched over. Holders only, no quiet window: the
// attempt before (ours, ended) wrote the file a moment ago, and its retry must not wait on it.

/** Output path → why it must not be launched over, for each path a process holds open for writing. */
export function heldOutputs(root: string, paths: readonly string[], ours: ReadonlySet<number>, source?: ProcSource): Map<string, string> {
  const out = new Map<string, string>();
  if (paths.length === 0) return out;
  for (const l of checkLive(root, paths, { quietMs: 0, ours, ...(source ? { source } : {}) }).values()) if (l.live) out.set(l.path, `${liveWhy(l)}; wait until it stops`);
  return out;
}
