import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './workspace.js';

// kubectl, offline: no cluster runs on this machine (docs/scale-out.md). A manifest is decoded
// by kubectl itself into its typed batch/v1 structures (`set env --local --dry-run=client`), so
// a wrong type fails and a dropped field shows as a difference against what we wrote.

export const hasKubectl = spawnSync('kubectl', ['version', '--client'], { stdio: 'ignore' }).status === 0;

/** The manifest as kubectl decoded it (with one env var it added: CHECKROOM_DECODED=1, last), its status and stderr. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- kubectl's JSON, read by the tests' own paths
export function decodeOffline(manifest: unknown): { status: number | null; stderr: string; back: any } {
  const file = join(tempDir(), 'job.json');
  writeFileSync(file, JSON.stringify(manifest));
  const r = spawnSync('kubectl', ['set', 'env', '--local', '--dry-run=client', '-f', file, 'CHECKROOM_DECODED=1', '-o', 'json'], { encoding: 'utf8' });
  return { status: r.status, stderr: r.stderr, back: r.status === 0 ? JSON.parse(r.stdout) : null };
}
