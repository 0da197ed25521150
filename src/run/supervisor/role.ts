import { relative } from 'node:path';
import { sanitizeLine } from '../../text/sanitize.js';
import { acquireDriverLock, lockPath, type DriverLock } from './lock.js';
import { adoptRun, canAdopt, type AdoptDeps } from './adopt.js';
import { splitAdoptable } from './adopt-jobs.js';
import { settleEarlierRuns } from './restart.js';
import { journalUnrecordedJobs } from './unjournalled-jobs.js';
import { driverPilot, type DriverPilot } from './takeover.js';
import type { Emitter, JournalPort, WorkspaceRef } from './ports.js';

// Driver or observer (docs/reliability.md, Observers see what the driver sees). The lock decides at start; an observer looks
// again at every refresh and, once the driver's lock is stale (its pid gone, or another
// process now: start time differs), becomes the driver. A new driver — at start or by taking
// over — starts a session and adopts or settles what earlier checkrooms left running. What
// it did is said (an event) and kept (`notices`), for a control room that subscribes later.

export type RoleOptions = WorkspaceRef & JournalPort & Emitter & { readonly: boolean };

export interface Role {
  readonly lock: DriverLock;
  readonly isDriver: boolean;
  readonly notices: readonly string[];
  /** Start driving (the lock is ours): session start, earlier runs adopted or settled, each said. */
  drive(adopt: AdoptDeps): Promise<void>;
  /**
   * An observer: take the lock over if it went stale, then drive. What the driver had — its
   * autopilot (takeover.ts) — when it did, else null.
   */
  takeOver(adopt: AdoptDeps): Promise<DriverPilot | null>;
}

export function createRole(o: RoleOptions): Role {
  let lock: DriverLock = o.readonly ? { role: 'readonly', reason: 'started with --readonly: nothing is launched and nothing is written', release() {} } : acquireDriverLock(o.root);
  const notices: string[] = [];
  const tell = (message: string): void => {
    notices.push(sanitizeLine(message));
    if (notices.length > 20) notices.shift();
    o.emit({ type: 'notice', message });
  };

  // What a new driver says: the take-over first, then what became of the runs it found.
  const drive = async (adopt: AdoptDeps): Promise<string[]> => {
    const said: string[] = [];
    if (lock.tookOver) {
      const h = lock.tookOver.holder;
      said.push(`took over ${relative(o.root, lockPath(o.root))}: it was stale (${h ? `held by pid ${h.pid} on ${h.host}` : 'unreadable'}; ${lock.tookOver.why}); this checkroom drives now`);
    }
    await o.append({ type: 'session', at: o.now(), kind: 'start', pid: process.pid });
    // A job submitted just before the last checkroom was killed, never journalled: recorded, then adopted below.
    const unrecorded = await journalUnrecordedJobs(o);
    if (unrecorded) said.push(unrecorded);
    // A cluster's jobs outlive any checkroom; they are adopted through their
    // executor, the local process groups settled as before.
    const { adopt: jobs, reap } = splitAdoptable(o.ledger(), o.config);
    const settled = await settleEarlierRuns({ ...o.ledger(), liveRuns: reap }, o.config, o.now, o.append, o.emit, (run) => canAdopt(adopt, run));
    for (const run of settled.adopt) adoptRun(adopt, run);
    await adopt.adoptJobs?.(jobs.filter((run) => canAdopt(adopt, run)));
    if (settled.summary) said.push(settled.summary);
    return said;
  };

  return {
    get lock() {
      return lock;
    },
    get isDriver() {
      return lock.role === 'driver';
    },
    notices,
    async drive(adopt) {
      for (const line of await drive(adopt)) tell(line);
    },
    async takeOver(adopt) {
      if (o.readonly || lock.role === 'driver') return null;
      // Also follows a new holder (another observer won) for the header.
      lock = acquireDriverLock(o.root);
      if (lock.role !== 'driver') return null;
      // Read before this session starts: the journal as the driver left it.
      const had = driverPilot(o.ledger());
      // Said in one message: a control room shows only its last one.
      const said = await drive(adopt);
      tell([...said, had.on ? 'autopilot stays on, as the driver had it (a turns it off)' : 'autopilot is off here, as the driver had it, until turned on (a)'].join('; '));
      return had;
    },
  };
}
