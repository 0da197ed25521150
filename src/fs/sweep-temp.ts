import { randomBytes } from 'node:crypto';
import { lstat, readdir, unlink, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { expandUnit } from '../scan/units.js';
import { assertInside, ConfineError } from './confine-path.js';

// Leftover temp files of interrupted atomic writes. writeFileAtomic
// (atomic-write.ts) writes `.<name>.<pid>.<8 hex>.tmp` beside its target and renames it; a
// kill -9 between the two leaves the temp file behind for ever. At start they are swept —
// only checkroom's own name pattern, only regular files, and only when the writer cannot
// still be writing: its pid is gone, or the file is older than any write takes.

/** checkroom's temp name, and nothing else: `.` + target name + `.` + pid + `.` + 8 hex + `.tmp`. */
export const TEMP_NAME = /^\.(.+)\.(\d{1,10})\.([0-9a-f]{8})\.tmp$/;

/** A write takes milliseconds; a temp file this old has no writer, whatever its pid says
 *  (a pid can be reused, or belong to another host on a shared file system). */
export const TEMP_MAX_AGE_MS = 15 * 60 * 1000;

export interface SweptTemp {
  /** Workspace-relative, '/'-separated. */
  path: string;
  why: string;
}

export interface SweepOptions {
  now?: number;
  maxAgeMs?: number;
  /** Whether a pid is a live process on this host (tests inject it). */
  isAlive?: (pid: number) => boolean;
}

export const pidAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Why a temp file may go, or null while its writer may still be at it. */
const sweepReason = (pid: number, ageMs: number, maxAgeMs: number, isAlive: (pid: number) => boolean): string | null => {
  if (pid === process.pid) return null;
  if (!isAlive(pid)) return `writer pid ${pid} is gone`;
  if (ageMs > maxAgeMs) return `${Math.round(ageMs / 60_000)} min old`;
  return null;
};

/**
 * "Now" on the clock that stamps the files of `dir`: a temp file's age is its mtime against
 * this, not against the process clock, which can differ (an NFS server's clock; a process
 * under faketime). The probe's name is not a temp name; without write access, the process clock.
 */
async function fileSystemNow(root: string, dir: string): Promise<number> {
  const probe = join(dir, `.checkroom-clock.${process.pid}.${randomBytes(4).toString('hex')}`);
  try {
    await writeFile(assertInside('write', probe, [root]), '', { flag: 'wx' });
    return (await lstat(probe)).mtimeMs;
  } catch {
    return Date.now();
  } finally {
    await Promise.resolve()
      .then(() => unlink(assertInside('unlink', probe, [root])))
      .catch(() => undefined);
  }
}

/** Remove leftover temp files in `dirs` (absolute, inside `root`; not recursive). What was swept, and why. */
export async function sweepTempFiles(root: string, dirs: Iterable<string>, opts: SweepOptions = {}): Promise<{ swept: SweptTemp[]; failed: SweptTemp[] }> {
  const maxAge = opts.maxAgeMs ?? TEMP_MAX_AGE_MS;
  const isAlive = opts.isAlive ?? pidAlive;
  const swept: SweptTemp[] = [];
  const failed: SweptTemp[] = [];
  for (const dir of new Set(dirs)) {
    let names: string[];
    try {
      names = await readdir(dir);
    } catch {
      continue; // a step directory that does not exist yet
    }
    if (!names.some((n) => TEMP_NAME.test(n))) continue;
    const now = opts.now ?? (await fileSystemNow(root, dir));
    for (const name of names) {
      const m = TEMP_NAME.exec(name);
      if (!m) continue;
      const abs = join(dir, name);
      const st = await lstat(abs).catch(() => null);
      if (!st?.isFile()) continue;
      const why = sweepReason(Number(m[2]), now - st.mtimeMs, maxAge, isAlive);
      if (why === null) continue;
      const path = relative(root, abs).split(sep).join('/');
      try {
        // A step directory linked out of the workspace is not swept.
        await unlink(assertInside('unlink', abs, [root]));
        swept.push({ path, why });
      } catch (err) {
        failed.push({ path, why: err instanceof ConfineError ? err.message : `cannot remove it (${(err as NodeJS.ErrnoException).code ?? String(err)})` });
      }
    }
  }
  return { swept, failed };
}

/** Where checkroom writes atomically: the workspace, `.checkroom/`, the sources' and every
 *  step output's directory (templates expanded per unit when the directory names one). */
export function atomicWriteDirs(root: string, files: { checkpoint: string; resume: string }, stepPaths: readonly string[], units: readonly string[]): string[] {
  const dirs = new Set([root, join(root, '.checkroom'), dirname(join(root, files.checkpoint)), dirname(join(root, files.resume))]);
  for (const p of stepPaths) {
    const dir = dirname(p);
    if (!dir.includes('{unit}')) dirs.add(join(root, dir));
    else for (const u of units) dirs.add(join(root, expandUnit(dir, u)));
  }
  // Never outside the workspace, whatever a template says.
  return [...dirs].filter((d) => d === root || d.startsWith(root + sep));
}

/** One line for the operator: what was swept (or could not be). Null when nothing was found. */
export function describeSweep(r: { swept: SweptTemp[]; failed: SweptTemp[] }, show = 3): string | null {
  const all = [...r.swept, ...r.failed];
  if (all.length === 0) return null;
  const list = (xs: SweptTemp[]) => `${xs.slice(0, show).map((x) => `${x.path} (${x.why})`).join(', ')}${xs.length > show ? `, … ${xs.length - show} more` : ''}`;
  const parts = [
    r.swept.length ? `swept ${r.swept.length} leftover temp file${r.swept.length === 1 ? '' : 's'} of interrupted writes: ${list(r.swept)}` : null,
    r.failed.length ? `${r.failed.length} leftover temp file${r.failed.length === 1 ? '' : 's'} not swept: ${list(r.failed)}` : null,
  ];
  return parts.filter(Boolean).join('; ');
}
