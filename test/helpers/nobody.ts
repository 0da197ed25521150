import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { chmodSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { REPO } from './workspace.js';

// Permission tests need a user that file modes apply to (root ignores them): `nobody`,
// through runuser. The checkout may sit in a private directory (mktemp -d is 0700), so
// `nobody` is let through to the repository for the length of the call, then every mode is
// put back. Null when runuser is not there (nothing can be proved then).

export const NOBODY = 65534;

export function runAsNobody(argv: string[], env: Record<string, string> = {}): SpawnSyncReturns<string> | null {
  const opened: [string, number][] = [];
  for (let d = REPO; d !== dirname(d); d = dirname(d)) {
    const mode = statSync(d).mode & 0o7777;
    if (mode & 0o001) continue;
    opened.push([d, mode]);
    chmodSync(d, mode | 0o001);
  }
  let r: SpawnSyncReturns<string>;
  try {
    r = spawnSync('runuser', ['-u', 'nobody', '--', 'env', ...Object.entries(env).map(([k, v]) => `${k}=${v}`), ...argv], { encoding: 'utf8' });
  } finally {
    for (const [d, mode] of opened) chmodSync(d, mode);
  }
  if (r.error || (r.status !== 0 && /runuser/.test(r.stderr))) return null;
  return r;
}
