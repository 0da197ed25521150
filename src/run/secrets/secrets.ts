import { closeSync, fstatSync, openSync, readSync, realpathSync, constants } from 'node:fs';
import { homedir } from 'node:os';
import type { SecretSource } from '../../pipeline/config/types.js';
import { realOrResolved, within } from '../../fs/confine-path.js';
import { rememberSecrets } from '../../text/redact.js';

// Secrets an agent gets (docs/scale-out.md, Secrets): the names `secrets:` declares, read at
// each launch from checkroom's environment or from a file that is the user's own and 0600,
// and the key-like names already in checkroom's environment (ANTHROPIC_API_KEY and the like).
// Every value read is remembered for redaction (text/redact.ts); the executors keep the names
// off command lines and out of what they submit (Slurm: a 0600 file; Kubernetes: a Secret).

/** Names in checkroom's environment treated as secrets without being declared. */
export const IMPLICIT_SECRET = /^(?!CHECKROOM_)[A-Z0-9_]*(?:API_KEY|_TOKEN|_SECRET|PASSWORD)$/;

export class SecretError extends Error {}

export interface LaunchSecrets {
  /** Declared names and their values, for the agent's environment. */
  env: Record<string, string>;
  /** Every secret name the agent's environment may hold: declared and implicit. */
  names: string[];
}

const MAX_SECRET_BYTES = 64 * 1024;

/** A secret file's one value: confined, a regular file, the user's own, 0600 or stricter, one line. */
export const readSecretFile = (name: string, path: string, roots: readonly string[]): string => {
  const say = (what: string): never => {
    throw new SecretError(`secret ${name}: the file ${path} ${what}`);
  };
  let real = '';
  try {
    real = realpathSync(path);
  } catch {
    say('does not exist: create it with the value on one line, then chmod 600 it');
  }
  if (!roots.some((r) => within(real, realOrResolved(r)))) say(`is outside the workspace, outside_roots and your home directory (${roots.join(', ')}): move it into one of them`);
  const fd = openSync(real, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) say('is not a regular file');
    if ((st.mode & 0o077) !== 0) say(`has mode ${(st.mode & 0o777).toString(8).padStart(4, '0')}, readable by others: chmod 600 ${path}`);
    if (typeof process.getuid === 'function' && st.uid !== process.getuid()) say(`belongs to uid ${st.uid}, not to you (uid ${process.getuid()}): chown it or use your own copy`);
    if (st.size > MAX_SECRET_BYTES) say(`is ${st.size} bytes, over ${MAX_SECRET_BYTES}: a secret file holds one value`);
    const buf = Buffer.alloc(st.size);
    const n = st.size ? readSync(fd, buf, 0, st.size, 0) : 0;
    const value = buf.subarray(0, n).toString('utf8').replace(/\r?\n$/, '');
    if (value === '') say('is empty: write the value on one line');
    if (/[\r\n\0]/.test(value)) say('holds more than one line: a secret file holds one value on one line');
    return value;
  } finally {
    closeSync(fd);
  }
};

/**
 * The secrets of one launch. `env`: checkroom's environment (where `{ env: VAR }` reads and
 * implicit names are found); `roots`: where a secret file may be (the workspace, outside_roots, home).
 */
export const readSecrets = (declared: Record<string, SecretSource> | undefined, env: NodeJS.ProcessEnv, roots: readonly string[]): LaunchSecrets => {
  const out: Record<string, string> = {};
  for (const [name, src] of Object.entries(declared ?? {})) {
    if ('env' in src) {
      const v = env[src.env];
      if (v === undefined || v === '') throw new SecretError(`secret ${name}: the environment variable ${src.env} is not set: export it in the shell that starts checkroom`);
      if (/[\r\n\0]/.test(v)) throw new SecretError(`secret ${name}: the environment variable ${src.env} holds more than one line`);
      out[name] = v;
    } else out[name] = readSecretFile(name, src.file, roots);
  }
  const implicit = Object.keys(env).filter((k) => IMPLICIT_SECRET.test(k) && env[k]);
  // The variable a declared secret is read from holds the same value: a secret name too.
  const sources = Object.values(declared ?? {}).flatMap((s) => ('env' in s ? [s.env] : []));
  rememberSecrets([...Object.values(out), ...implicit.map((k) => env[k]!)]);
  return { env: out, names: [...new Set([...Object.keys(out), ...implicit, ...sources])].sort() };
};

/** Where secret files may be: the workspace, its outside_roots, the user's home. */
export const secretRoots = (root: string, outsideRoots: readonly string[] = []): string[] => [root, ...outsideRoots, homedir()];
