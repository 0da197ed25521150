import { statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { realOrResolved, within } from '../../fs/confine-path.js';
import type { AttemptLog } from './attempts.js';
import { LogIndex } from './line-index.js';

// Opening an attempt's log for reading (docs/logs.md): the path comes from the journal, which
// is workspace input, so it must resolve into `.checkroom/runs/` of this workspace — a launch
// line naming /etc/shadow is refused, not printed. A missing log says why: pruned by the disk
// budget (with when), or gone.

export type OpenedLog = { index: LogIndex; rel: string } | { error: string };

export function openAttemptLog(root: string, a: AttemptLog, prunedAt?: number): OpenedLog {
  const runs = realOrResolved(join(root, '.checkroom', 'runs'));
  const real = realOrResolved(a.logPath);
  const rel = relative(root, a.logPath);
  if (!within(real, runs)) return { error: `${rel}: not under .checkroom/runs/ of this workspace (the journal's launch line points elsewhere); not read` };
  if (a.pruned) return { error: `${rel}: removed by the logs' disk budget${prunedAt ? ` at ${new Date(prunedAt).toISOString()}` : ''} (logs.max_bytes in checkroom.yaml)` };
  try {
    if (!statSync(real).isFile()) return { error: `${rel}: not a regular file; not read` };
    return { index: new LogIndex(real), rel };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return { error: code === 'ENOENT' ? `${rel}: no such file (deleted outside checkroom?)` : `${rel}: cannot read (${code ?? String(err)})` };
  }
}
