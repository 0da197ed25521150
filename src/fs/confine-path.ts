import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { sanitizeLine } from '../text/sanitize.js';

// The one gate every path checkroom deletes, writes, creates or connects to passes (a workspace is untrusted input). A path is checked where it lands, not as written:
// the deepest directory of it that exists is resolved (realpath), so `.checkroom -> /home/me`
// or `drafts -> ~/.ssh` inside the workspace is an escape, and `..` cannot climb out. The
// last component is followed too when the call would follow it (write in place, append, chmod, connect);
// unlink and rename act on a link itself, never on its target.

export type Mutation = 'write' | 'append' | 'rename' | 'unlink' | 'mkdir' | 'link' | 'copy' | 'chmod' | 'listen' | 'connect';

const VERB: Record<Mutation, string> = {
  write: 'write',
  append: 'append to',
  rename: 'replace',
  unlink: 'delete',
  mkdir: 'create the directory',
  link: 'create',
  copy: 'copy to',
  chmod: 'change the mode of',
  listen: 'listen on',
  connect: 'connect to',
};

/** Calls that act on what a symlink at the path points to, not on the link (`write`: in place, as SQLite does). */
const FOLLOWS: ReadonlySet<Mutation> = new Set(['write', 'append', 'chmod', 'connect']);

export class ConfineError extends Error {
  readonly code = 'ECONFINE';
  constructor(
    message: string,
    readonly path: string,
  ) {
    super(message);
    this.name = 'ConfineError';
  }
}

/** `real` is `base` or lies under it (both absolute, normalised). */
export const within = (real: string, base: string): boolean => real === base || real.startsWith(base.endsWith(sep) ? base : base + sep);

/** The real path of `p`, or `p` resolved as written when it does not exist (yet). */
export const realOrResolved = (p: string): string => {
  try {
    return realpathSync.native(p);
  } catch {
    return resolve(p);
  }
};

/** Where `abs` lands: its deepest existing ancestor resolved, the missing rest appended. */
export function landing(abs: string): string {
  const tail: string[] = [];
  let dir = abs;
  for (;;) {
    try {
      return join(realpathSync.native(dir), ...tail);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' || dir === dirname(dir)) throw err;
      tail.unshift(basename(dir));
      dir = dirname(dir);
    }
  }
}

const isLink = (abs: string): boolean => {
  try {
    return lstatSync(abs).isSymbolicLink();
  } catch {
    return false;
  }
};

/** Where a chain of links at `real` ends, dangling or not (a dangling link's target is created by a write through it). */
function followed(real: string): string {
  for (let hops = 0; isLink(real); hops++) {
    if (hops >= 40) throw Object.assign(new Error('too many links'), { code: 'ELOOP' });
    const target = resolve(dirname(real), readlinkSync(real));
    real = join(landing(dirname(target)), basename(target));
  }
  return real;
}

/**
 * `path` resolved, when it lands inside one of `roots` (the workspace, checkroom's runtime
 * directory); otherwise a ConfineError saying where it would have landed and what to do.
 * Nothing is created or changed.
 */
export function assertInside(kind: Mutation, path: string, roots: readonly string[]): string {
  const abs = resolve(path);
  const bases = roots.map(realOrResolved);
  // As written it is inside: a symlink on the way leads out. Otherwise the name itself does.
  const linked = roots.some((r) => within(abs, resolve(r)));
  const refuse = (where: string): ConfineError =>
    new ConfineError(
      `refusing to ${VERB[kind]} ${sanitizeLine(abs)}: it lands at ${sanitizeLine(where)}, outside ${bases.map(sanitizeLine).join(' and ')}. ` +
        (linked
          ? 'A symlink on the way (such as .checkroom/, drafts/ or the file itself) points out of the workspace: make it a real directory or file, then try again (nothing was changed)'
          : 'checkroom changes nothing outside the workspace and its runtime directory (nothing was changed)'),
      abs,
    );
  let real: string;
  try {
    real = join(landing(dirname(abs)), basename(abs));
    if (FOLLOWS.has(kind)) real = followed(real);
  } catch (err) {
    throw new ConfineError(`refusing to ${VERB[kind]} ${sanitizeLine(abs)}: its directory cannot be resolved (${(err as NodeJS.ErrnoException).code ?? 'error'}); nothing was changed`, abs);
  }
  if (!bases.some((b) => within(real, b))) throw refuse(real);
  return abs;
}
