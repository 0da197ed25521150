import { createHash } from 'node:crypto';
import { chmod, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../../fs/atomic-write.js';
import { assertInside } from '../../fs/confine-path.js';

// The one script every Slurm job runs. Its text is fixed: the agent's argv
// arrives as its arguments ("$@"), never as shell text built from values, so nothing in a
// unit id or an error line is ever parsed by a shell. It forwards SIGTERM (sbatch
// --signal=B:TERM@grace, scancel --batch --signal=TERM) to the agent and leaves the exit
// status next to the log, where a checkroom restarted after the job has left the
// scheduler's memory (MinJobAge) still finds it.

/** The lines of both job scripts (this and the array task's) that export the run's secrets from
 *  their 0600 file next to `$status_file`, then delete it (docs/scale-out.md, Secrets). */
export const SECRETS_READ = `# Secrets come in a 0600 file next to the status file, never on a command line or in the
# job's submitted environment; each line NAME=value is exported as it is, then the file goes.
secrets="\${status_file%.exit}.secrets"
if [ -f "$secrets" ]; then
  while IFS= read -r line || [ -n "$line" ]; do
    case $line in
      [A-Za-z_]*=*) export "$line" ;;
    esac
  done < "$secrets"
  rm -f "$secrets"
fi
`;

/** The end of both job scripts: run the argv, forward SIGTERM to it, and leave its exit status
 *  (and whether a TERM came) next to the log, written whole by a rename. */
export const RUN_AND_RECORD = `got=
"$@" &
child=$!
trap 'got=TERM; kill -TERM "$child" 2>/dev/null' TERM INT HUP
while :; do
  wait "$child"
  code=$?
  kill -0 "$child" 2>/dev/null || break
done
printf '%s %s\\n' "$code" "$got" > "$status_file.tmp.$$" && mv -f "$status_file.tmp.$$" "$status_file"
exit "$code"
`;

export const WRAPPER_TEXT = `#!/bin/sh
# checkroom Slurm wrapper: usage: run-agent.sh <status-file> <argv...>
status_file=$1
shift
${SECRETS_READ}${RUN_AND_RECORD}`;

export const wrapperPath = (root: string): string => join(root, '.checkroom', 'slurm', 'run-agent.sh');

/** The 0600 file the wrapper reads the run's secrets from, then deletes (docs/scale-out.md, Secrets). */
export const secretsPathOf = (logPath: string): string => logPath.replace(/\.log$/, '') + '.secrets';

/** Where the wrapper leaves the exit status of a run. */
export const statusPathOf = (logPath: string): string => logPath.replace(/\.log$/, '') + '.exit';

/** Write the wrapper into the workspace (on the shared filesystem, so every node sees it). */
export async function ensureWrapper(root: string): Promise<string> {
  const path = wrapperPath(root);
  const current = await readFile(path, 'utf8').catch(() => null);
  if (current !== WRAPPER_TEXT) {
    await mkdir(assertInside('mkdir', join(root, '.checkroom', 'slurm'), [root]), { recursive: true });
    await writeFileAtomic(path, WRAPPER_TEXT, [root]);
  }
  await chmod(assertInside('chmod', path, [root]), 0o755);
  return path;
}

export interface RecordedStatus {
  code: number;
  /** The wrapper was sent SIGTERM: by sbatch --signal before the time limit, unless checkroom stopped it. */
  termed: boolean;
}

/** The exit status the wrapper recorded, or null (still running, or killed before it could). */
export async function recordedStatus(logPath: string): Promise<RecordedStatus | null> {
  const text = await readFile(statusPathOf(logPath), 'utf8').catch(() => null);
  const [code, got] = (text ?? '').trim().split(/\s+/);
  const n = Number(code);
  return text !== null && code !== '' && Number.isInteger(n) ? { code: n, termed: got === 'TERM' } : null;
}

/** A short stable id of the workspace, in every job's comment: this workspace's jobs. */
export const workspaceTag = (root: string): string => createHash('sha256').update(root).digest('hex').slice(0, 12);

/** `checkroom ws=<tag> run=<runId> cell=<unit>/<step>` (slurm.ts jobComment) → its parts. */
export const parseJobComment = (comment: string): { ws: string; runId: string; unit: string; step: string } | null => {
  const m = /^checkroom ws=(\S+) run=(\S+) cell=([^/\s]+)\/(\S+)/.exec(comment);
  return m ? { ws: m[1]!, runId: m[2]!, unit: m[3]!, step: m[4]! } : null;
};
