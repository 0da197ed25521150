import { execa } from 'execa';
import { randomBytes } from 'node:crypto';
import { procStartTime, untilExeced } from './proc.js';
import { pipesOf, RUN_TOKEN_VAR, type RunTag } from './members.js';
import type { ProcessSpec } from '../types.js';

// The spawn of one attempt as a process group (docs/domain.md, Handling agent faults): `detached: true` makes the
// agent a group leader, so every kill reaches the helpers it spawned; the run token in the
// environment finds descendants that escaped the group with setsid (run-members.ts). A spawn that fails is a value (its errno), never a throw.

type Subprocess = ReturnType<typeof execa>;

export interface Spawned {
  subprocess: Subprocess | null;
  pid: number | null;
  procStart: number | null;
  /** How the run's processes are found and killed; null when nothing started. */
  tag: RunTag | null;
  token: string;
  /** The errno of a spawn that threw before any process existed. */
  syncError: string | null;
}

export function spawnGroup(spec: ProcessSpec): Spawned {
  // Inherited by every descendant: how one that left the group is still found (run-members.ts).
  const token = `${spec.runId}.${randomBytes(6).toString('hex')}`;
  let subprocess: Subprocess | null = null;
  let syncError: string | null = null;
  try {
    if (spec.argv.length === 0) throw Object.assign(new Error('empty command'), { code: 'EINVAL' });
    const start = (): Subprocess => execa(spec.argv[0]!, spec.argv.slice(1), {
      cwd: spec.cwd,
      env: { ...spec.env, [RUN_TOKEN_VAR]: token },
      shell: false,
      detached: true,
      reject: false,
      buffer: false,
      stdin: 'ignore',
      stdout: 'pipe',
      stderr: 'pipe',
      encoding: 'buffer',
      // We signal the group ourselves; execa's own kill would only reach the leader.
      forceKillAfterDelay: false,
    });
    // Killed between fork and exec by a signal to our process group (a hang-up): started again (proc.ts).
    subprocess = untilExeced(start, (dead) => {
      dead.stdout?.destroy();
      dead.stderr?.destroy();
    });
  } catch (err) {
    syncError = (err as NodeJS.ErrnoException).code ?? 'EINVAL';
  }
  const pid = subprocess?.pid ?? null;
  const procStart = pid ? procStartTime(pid) : null;
  const tag: RunTag | null = pid === null ? null : { pgid: pid, procStart, token, pipes: pipesOf(pid) };
  return { subprocess, pid, procStart, tag, token, syncError };
}

/** A spawn error in words an operator can act on. */
export const explainSpawn = (code: string, spec: ProcessSpec): string =>
  code === 'ENOENT'
    ? `cannot start ${spec.argv[0]}: executable not found (or working directory ${spec.cwd} does not exist)`
    : code === 'EACCES'
      ? `cannot start ${spec.argv[0]}: permission denied (is it executable?)`
      : `cannot start ${spec.argv[0]}: ${code}`;

/** The log's first line: everything needed to find the run's processes again after a crash. */
export const headerLine = (spec: ProcessSpec, s: Spawned, startedAt: number): string =>
  `[checkroom] start ${new Date(startedAt).toISOString()} run=${spec.runId} pid=${s.pid ?? '-'} procStart=${s.procStart ?? '-'} token=${s.token} cwd=${JSON.stringify(spec.cwd)} argv=${JSON.stringify(spec.argv)}\n`;
