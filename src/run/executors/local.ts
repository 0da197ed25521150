import { appendFileSync, existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { startProcess } from '../process/process.js';
import { assertInside } from '../../fs/confine-path.js';
import { formatMemory } from '../../pipeline/resources.js';
import type { Executor, ExecutorSpec } from './types.js';

// Today's executor: the agent as a process group on this machine (src/run/process/process.ts), its
// output held by a keeper so it outlives checkroom. It has no adopt(): a
// local run of a dead checkroom is adopted or ended on restart by pid, start time and run
// token (supervisor-restart.ts, supervisor-adopt.ts).
// Its one resource is memory, as a limit on the process's data (prlimit --data, an argument
// array; the agent runs in place of prlimit, same pid): an allocation past it fails, which the
// OOM_KILLED class's sign reads. cpus, gpus, partition and account are not applied here
// (docs/scale-out.md, Resources).

/** prlimit on PATH, or null: without it the memory is shown as not applied. */
export const prlimitOn = (path: string | undefined): string | null => {
  for (const dir of (path ?? '').split(delimiter)) if (dir && existsSync(join(dir, 'prlimit'))) return join(dir, 'prlimit');
  return null;
};

/** The argv with its memory limit, or as it is with the reason it is not applied. */
export const limitedArgv = (spec: Pick<ExecutorSpec, 'argv' | 'resources' | 'env'>): { argv: string[]; note: string | null } => {
  const mib = spec.resources?.memoryMiB;
  if (mib === undefined) return { argv: spec.argv, note: null };
  const prlimit = prlimitOn(spec.env.PATH ?? process.env.PATH);
  if (!prlimit) return { argv: spec.argv, note: `memory ${formatMemory(mib)} not applied: prlimit (util-linux) is not on PATH` };
  const bytes = mib * 1024 * 1024;
  return { argv: [prlimit, `--data=${bytes}`, '--', ...spec.argv], note: `memory ${formatMemory(mib)} applied as a data limit (prlimit --data=${bytes})` };
};

export const localExecutor: Executor = {
  name: 'local',
  start: async (spec) => {
    const { argv, note } = limitedArgv(spec);
    if (note) {
      try {
        appendFileSync(assertInside('append', spec.logPath, [spec.root]), `[checkroom] ${note}\n`);
      } catch {
        // the log's header is a courtesy; the run does not depend on it
      }
    }
    return startProcess({ ...spec, argv });
  },
};
