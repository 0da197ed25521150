import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { chmodSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { REPO } from './workspace.js';

// Permission tests need a user that file modes apply to (root ignores them): `nobody`,
// through runuser. The checkout may sit in a private directory (mktemp -d is 0700), so
// `nobody` is let through (o+x: traverse, not list) to the repository and stays let through
// for the run. Putting the mode back after each call raced: two test files calling at once in
// two workers, one put 0700 back while the other's `nobody` was still importing from dist/
// (CI: ERR_MODULE_NOT_FOUND for dist/src/holders/liveness.js). Null when runuser is not there
// (nothing can be proved then).

export const NOBODY = 65534;

export function runAsNobody(argv: string[], env: Record<string, string> = {}): SpawnSyncReturns<string> | null {
  for (let d = REPO; d !== dirname(d); d = dirname(d)) {
    const mode = statSync(d).mode & 0o7777;
    if (!(mode & 0o001)) chmodSync(d, mode | 0o001);
  }
  const r = spawnSync('runuser', ['-u', 'nobody', '--', 'env', ...Object.entries(env).map(([k, v]) => `${k}=${v}`), ...argv], { encoding: 'utf8' });
  if (r.error || (r.status !== 0 && /runuser/.test(r.stderr))) return null;
  return r;
}
