import { chmod, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../../fs/atomic-write.js';
import { assertInside } from '../../fs/confine-path.js';
import { RUN_AND_RECORD, SECRETS_READ } from './slurm-wrapper.js';

// A job array's map from task index to cell (docs/scale-out.md, Arrays): one line per task,
// written atomically in .checkroom/slurm/arrays/ before sbatch, read by the one fixed script
// every task runs. Every field is `x` + base64, so a line splits on spaces into fields no
// shell ever parses as code and an empty argument stays an argument. The same script serves
// a Kubernetes Indexed Job, whose pods know their index as JOB_COMPLETION_INDEX.

export const ARRAY_WRAPPER_TEXT = `#!/bin/sh
# checkroom array task: usage: run-array.sh <manifest>; line N+1 is task N
# fields: run, cell, log, status file, cwd, argv... each x + base64
task=\${SLURM_ARRAY_TASK_ID:-$JOB_COMPLETION_INDEX}
line=$(sed -n "$((task + 1))p" "$1")
if [ -z "$line" ]; then echo "checkroom: no task $task in $1" >&2; exit 3; fi
dec() { v=$(printf '%s' "\${1#x}" | base64 -d; printf x); v=\${v%x}; }
set -f
set -- $line
shift 2
dec "$1"; log=$v; dec "$2"; status_file=$v; dec "$3"; cwd=$v
shift 3
n=$#
while [ "$n" -gt 0 ]; do dec "$1"; shift; set -- "$@" "$v"; n=$((n - 1)); done
exec >>"$log" 2>&1
cd "$cwd" || exit 3
${SECRETS_READ}${RUN_AND_RECORD}`;

export interface ManifestTask {
  runId: string;
  unit: string;
  step: string;
  logPath: string;
  statusPath: string;
  cwd: string;
  argv: readonly string[];
}

const field = (s: string): string => `x${Buffer.from(s, 'utf8').toString('base64')}`;
const unfield = (f: string): string => Buffer.from(f.slice(1), 'base64').toString('utf8');

/** One task's line (pure; tested as is). */
export const manifestLine = (t: ManifestTask): string => [t.runId, `${t.unit}/${t.step}`, t.logPath, t.statusPath, t.cwd, ...t.argv].map(field).join(' ');

/** A manifest's lines back: the task index is the line's. Lines that do not decode are null. */
export const parseManifest = (text: string): (ManifestTask | null)[] =>
  text
    .split('\n')
    .filter((l, i, all) => l !== '' || i < all.length - 1)
    .map((l) => {
      const f = l.split(' ');
      if (f.length < 5 || f.some((x) => !/^x[A-Za-z0-9+/=]*$/.test(x))) return null;
      const [runId, cell, logPath, statusPath, cwd, ...argv] = f.map(unfield);
      const slash = cell!.lastIndexOf('/');
      return { runId: runId!, unit: cell!.slice(0, slash), step: cell!.slice(slash + 1), logPath: logPath!, statusPath: statusPath!, cwd: cwd!, argv };
    });

export const arraysDir = (root: string): string => join(root, '.checkroom', 'slurm', 'arrays');
export const arrayWrapperPath = (root: string): string => join(root, '.checkroom', 'slurm', 'run-array.sh');

/** Writes the manifest (atomically) and the fixed script; returns both paths. */
export async function writeManifest(root: string, name: string, tasks: readonly ManifestTask[]): Promise<{ manifest: string; wrapper: string }> {
  await mkdir(assertInside('mkdir', arraysDir(root), [root]), { recursive: true });
  const manifest = join(arraysDir(root), `${name}.tasks`);
  await writeFileAtomic(manifest, tasks.map(manifestLine).join('\n') + '\n', [root]);
  const wrapper = arrayWrapperPath(root);
  if ((await readFile(wrapper, 'utf8').catch(() => null)) !== ARRAY_WRAPPER_TEXT) await writeFileAtomic(wrapper, ARRAY_WRAPPER_TEXT, [root]);
  await chmod(assertInside('chmod', wrapper, [root]), 0o755);
  return { manifest, wrapper };
}

/** The tasks of a manifest named in a job comment (`array=<name>`), or null when it is gone. */
export async function readManifest(root: string, name: string): Promise<(ManifestTask | null)[] | null> {
  if (!/^[A-Za-z0-9_.-]+$/.test(name)) return null;
  const text = await readFile(join(arraysDir(root), `${name}.tasks`), 'utf8').catch(() => null);
  return text === null ? null : parseManifest(text);
}
