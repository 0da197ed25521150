import { describe, expect, it } from 'vitest';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { slurmFinished } from '../../../../src/run/executors/slurm-account.js';
import { tempDir } from '../../../helpers/workspace.js';

// Jobs that end together are read by one sacct call (the arrays bench at 200 cells counted one
// sacct a job). A stand-in `sacct` on PATH answers as Slurm 22.05 does for a list of jobs
// (`-j 11,12,13`: each job's line and its batch step's, --parsable2, no header) and logs every
// call, so the test counts them; the real sacct is read on a real slurmdbd in slurm-two-nodes.

function fakeSacct(): { env: Record<string, string>; calls: () => string[] } {
  const dir = tempDir('checkroom-sacct-');
  mkdirSync(join(dir, 'bin'));
  const log = join(dir, 'calls.txt');
  writeFileSync(log, '');
  const script = `#!/bin/sh
ids=""
while [ $# -gt 0 ]; do case "$1" in -j) ids="$2"; shift 2;; *) shift;; esac; done
echo "$ids" >> ${JSON.stringify(log)}
for id in $(echo "$ids" | tr ',' ' '); do
  case "$id" in
    13) echo "$id|RUNNING|00:00:09||0:0|n2|2026-12-02T10:00:01|Unknown|2026-12-02T10:00:00" ;;
    *) echo "$id|COMPLETED|00:00:05||0:0|n1|2026-12-02T10:00:01|2026-12-02T10:00:06|2026-12-02T10:00:00"
       echo "$id.batch|COMPLETED|00:00:05|65536K|0:0|n1|2026-12-02T10:00:01|2026-12-02T10:00:06|2026-12-02T10:00:01" ;;
  esac
done
`;
  writeFileSync(join(dir, 'bin', 'sacct'), script);
  chmodSync(join(dir, 'bin', 'sacct'), 0o755);
  return { env: { PATH: `${join(dir, 'bin')}:/usr/bin:/bin`, SLURM_CONF: join(dir, 'slurm.conf') }, calls: () => readFileSync(log, 'utf8').split('\n').filter(Boolean) };
}

describe('sacct, gathered', () => {
  it('jobs that end together are one sacct call; each reader gets its own job; one still RUNNING is asked again alone', async () => {
    const { env, calls } = fakeSacct();
    const ids = ['11', '12', '13', '14'];
    const read = await Promise.all(ids.map((id) => slurmFinished(id, env, null, { tries: 2, gapMs: 100 })));
    expect(read.slice(0, 2).concat(read[3]!)).toEqual(
      ['11', '12', '14'].map((id) => ({ accounting: 'sacct', account: expect.objectContaining({ jobId: id, state: 'COMPLETED', elapsedMs: 5000, maxRssKiB: 65536, node: 'n1' }) })),
    );
    expect(read[2]).toEqual({ accounting: 'off', note: 'sacct still says RUNNING for job 13', node: null });
    // The first call carries all four; job 13's second try goes alone.
    expect(calls()).toEqual(['11,12,13,14', '13']);
  });
});
