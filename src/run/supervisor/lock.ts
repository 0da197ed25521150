import { closeSync, linkSync, mkdirSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { isSameProcessAlive, procStartTime } from '../process/proc.js';
import { assertInside } from '../../fs/confine-path.js';

// One driver per workspace (docs/decisions/one-driver-many-observers.md): two checkrooms
// launching agents on the same files would double every run. The second instance opens read-only and shows who drives. A lock left by a
// crashed (kill -9) driver is stale — its pid is dead or now belongs to another process
// (start time differs) — and is taken over.

export interface LockHolder {
  pid: number;
  procStart: number | null;
  host: string;
  startedAt: string;
}

export interface DriverLock {
  role: 'driver' | 'readonly';
  /** Who holds the lock: ourselves when driver, the other instance when readonly. */
  holder?: LockHolder;
  /** Why we are read-only, in words for the operator. */
  reason?: string;
  /** Driver by taking over a stale lock: whose it was and why it was stale. */
  tookOver?: { holder: LockHolder | null; why: string };
  release(): void;
}

export const lockPath = (root: string): string => join(root, '.checkroom', 'driver.lock');

const tempName = (path: string): string => `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;

const writeTemp = (path: string, text: string): string => {
  const tmp = tempName(path);
  const fd = openSync(tmp, 'wx', 0o644);
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
  return tmp;
};

// Create `path` with its full content in one step: link() fails with EEXIST atomically,
// and unlike open(O_EXCL)+write there is no moment where another instance reads it empty.
const createExclusive = (path: string, text: string): boolean => {
  const tmp = writeTemp(path, text);
  try {
    linkSync(tmp, path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    try {
      unlinkSync(tmp);
    } catch {
      // already gone
    }
  }
};

const readRaw = (path: string): string | null => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
};

const parseHolder = (raw: string | null): LockHolder | null => {
  if (raw === null) return null;
  try {
    const v = JSON.parse(raw) as Partial<LockHolder>;
    if (typeof v.pid !== 'number' || typeof v.host !== 'string') return null;
    return { pid: v.pid, procStart: typeof v.procStart === 'number' ? v.procStart : null, host: v.host, startedAt: String(v.startedAt ?? '') };
  } catch {
    return null;
  }
};

// Why the lock is stale, or null while its holder lives. A holder on another host cannot be
// checked from here: it is assumed alive (`checkroom unlock --host` is the way out).
const staleness = (holder: LockHolder | null): string | null => {
  if (holder === null) return 'it could not be read';
  if (holder.host !== hostname()) return null;
  if (isSameProcessAlive(holder.pid, null)) return isSameProcessAlive(holder.pid, holder.procStart) ? null : `pid ${holder.pid} now belongs to another process (start time differs)`;
  return `pid ${holder.pid} is gone`;
};

const ageMs = (path: string): number => {
  try {
    return Date.now() - statSync(path).mtimeMs;
  } catch {
    return Infinity;
  }
};

/**
 * Replace a stale lock. Takeovers are serialised by a second exclusive file so two
 * instances finding the same stale lock cannot both rename over it and both believe they
 * won; the final re-read confirms the lock on disk is ours.
 */
const takeOver = (path: string, staleRaw: string | null, mine: string): boolean => {
  const guard = `${path}.takeover`;
  if (!createExclusive(guard, mine)) {
    // A guard older than a few seconds belongs to an instance that died mid-takeover.
    if (ageMs(guard) > 5000) unlinkQuiet(guard);
    return false;
  }
  try {
    if (readRaw(path) !== staleRaw) return false;
    renameSync(writeTemp(path, mine), path);
    return readRaw(path) === mine;
  } finally {
    unlinkQuiet(guard);
  }
};

const unlinkQuiet = (path: string): void => {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
};

export function acquireDriverLock(root: string): DriverLock {
  const path = lockPath(root);
  // Every lock file is a sibling of `path`: one check covers them all.
  mkdirSync(assertInside('mkdir', join(root, '.checkroom'), [root]), { recursive: true });
  assertInside('write', path, [root]);
  const me: LockHolder = { pid: process.pid, procStart: procStartTime(process.pid), host: hostname(), startedAt: new Date().toISOString() };
  const mine = `${JSON.stringify(me)}\n`;
  let released = false;
  const driver: DriverLock = {
    role: 'driver',
    holder: me,
    release() {
      if (released) return;
      released = true;
      // Only remove the lock if it is still ours (never delete a successor's lock).
      if (readRaw(path) === mine) unlinkQuiet(path);
    },
  };

  for (let tries = 0; tries < 5; tries++) {
    // Another instance is mid-takeover or mid-release: give it a moment (startup only).
    if (tries > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
    if (createExclusive(path, mine)) return driver;
    const raw = readRaw(path);
    if (raw === null) continue; // released between our attempts: try again
    const holder = parseHolder(raw);
    const why = staleness(holder);
    if (why === null) {
      const other = holder!;
      const self = other.pid === process.pid && other.host === me.host;
      const foreign = other.host !== me.host;
      return {
        role: 'readonly',
        holder: other,
        reason: self
          ? 'this checkroom process already drives this workspace'
          : foreign
            ? `another checkroom (pid ${other.pid} on host ${other.host}, since ${other.startedAt}) drives this workspace; if that host is down, run: checkroom unlock ${root} --host ${other.host}`
            : `another checkroom (pid ${other.pid} on ${other.host}, since ${other.startedAt}) drives this workspace; to drive from here, press T (it hands its runs over, they keep running) or run: checkroom unlock ${root} --handover`,
        release() {},
      };
    }
    if (takeOver(path, raw, mine)) return { ...driver, tookOver: { holder, why } };
  }
  return {
    role: 'readonly',
    reason: `could not acquire ${path}: it keeps changing; another instance may be starting`,
    release() {},
  };
}

/**
 * The way out of a lock held on another host, which cannot be checked from
 * here: the operator names the host, and the lock is removed only if it is that host's. A
 * lock of this host is never removed while its holder lives (a stale one is taken over by
 * the next start anyway). Returns what was done, in words; throws an Error saying why not.
 */
export function unlockDriverLock(root: string, host: string): string {
  const path = assertInside('unlink', lockPath(root), [root]);
  const raw = readRaw(path);
  if (raw === null) throw new Error(`no lock at ${path}: nothing to unlock`);
  const holder = parseHolder(raw);
  if (holder && holder.host !== host) throw new Error(`${path} is held by pid ${holder.pid} on host ${holder.host}, not ${host}: not removed`);
  if (holder && holder.host === hostname() && staleness(holder) === null) {
    throw new Error(`${path} is held by pid ${holder.pid} on this host, which is running: ask it to hand over (its runs keep running): checkroom unlock ${root} --handover`);
  }
  // Removed only if it is still the lock we judged (a new driver may have just taken it).
  if (readRaw(path) !== raw) throw new Error(`${path} changed while it was checked: run unlock again`);
  unlinkQuiet(path);
  return holder
    ? `removed ${path} (pid ${holder.pid} on host ${holder.host}, since ${holder.startedAt}); the next checkroom drives this workspace`
    : `removed ${path} (unreadable); the next checkroom drives this workspace`;
}
