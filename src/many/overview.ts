import { watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import type { WorkspaceEntry } from './entries.js';
import { hostOf, nextDelay, nextState, sortRows, waitFor, type OverviewRow, type ReadResult } from './rows.js';

// The live overview (docs/many.md): each workspace read again on its own timer — a local one
// also at once when its checkpoint or journal changes (a watch on the workspace's directory and
// .checkroom/; the artifacts below are seen by the timer), a remote one with backoff while it
// is unreachable. One read per workspace at a time, so a slow host never piles up reads.

export interface OverviewIo {
  read(e: WorkspaceEntry): Promise<ReadResult>;
  now(): number;
  localMs: number;
  remoteMs: number;
  /** The least time between the end of one read of a workspace and the next one its file events ask for. */
  gapMs: number;
  /** Watch local workspaces' directories (off in tests that count reads). */
  watch?: boolean;
}

export interface Overview {
  /** Most urgent first (rows.ts). */
  rows(): OverviewRow[];
  /** The clock reading of the last change: what the rows' times (an ETA's day, since when unreachable) are drawn against. */
  at(): number;
  subscribe(fn: () => void): () => void;
  /** Read every workspace again now (the overview's `r`). */
  refresh(): void;
  /** No reads while a control room opened from here has the terminal: nothing is drawn, and its machine's cores are the room's. */
  pause(): void;
  /** Reads again, every workspace at once. */
  resume(): void;
  close(): void;
}

interface Slot {
  row: OverviewRow;
  failures: number;
  reading: boolean;
  again: boolean;
  lastEnd: number;
  timer: NodeJS.Timeout | null;
  watchers: FSWatcher[];
}

export function createOverview(entries: readonly WorkspaceEntry[], io: OverviewIo): Overview {
  const subs = new Set<() => void>();
  let closed = false;
  let paused = false;
  let sorted: OverviewRow[] | null = null;
  let at = io.now();
  const slots: Slot[] = entries.map((entry) => ({ row: { entry, host: hostOf(entry), state: { kind: 'loading' } }, failures: 0, reading: false, again: false, lastEnd: 0, timer: null, watchers: [] }));
  const changed = (): void => {
    sorted = null;
    at = io.now();
    for (const fn of subs) fn();
  };
  const schedule = (s: Slot, ms: number): void => {
    if (closed) return;
    if (s.timer) clearTimeout(s.timer);
    s.timer = setTimeout(() => void readNow(s), ms);
    s.timer.unref?.();
  };
  const readNow = async (s: Slot): Promise<void> => {
    if (closed || paused) return;
    if (s.reading) {
      s.again = true;
      return;
    }
    s.reading = true;
    const r = await io.read(s.row.entry).catch((err: unknown): ReadResult => ({ kind: 'error', reason: String((err as Error)?.message ?? err) }));
    s.reading = false;
    s.lastEnd = io.now();
    if (closed || paused) return;
    s.failures = r.kind === 'unreachable' ? s.failures + 1 : 0;
    s.row = { ...s.row, state: nextState(s.row.state, r, io.now()) };
    changed();
    const remote = s.row.entry.kind === 'ssh';
    schedule(s, s.again ? 0 : nextDelay(remote, remote ? io.remoteMs : io.localMs, s.failures));
    s.again = false;
  };
  for (const s of slots) {
    const e = s.row.entry;
    if (e.kind === 'local' && io.watch !== false) {
      for (const d of [e.dir, join(e.dir, '.checkroom')]) {
        try {
          const w = watch(d, () => schedule(s, waitFor(200, io.now(), s.lastEnd, io.gapMs)));
          w.on('error', () => w.close());
          s.watchers.push(w);
        } catch {
          // Not there (yet): the timer reads it.
        }
      }
    }
    void readNow(s);
  }
  return {
    rows: () => (sorted ??= sortRows(slots.map((s) => s.row))),
    at: () => at,
    subscribe: (fn) => {
      subs.add(fn);
      return () => subs.delete(fn);
    },
    refresh: () => slots.forEach((s) => void readNow(s)),
    pause: () => {
      paused = true;
      for (const s of slots) if (s.timer) clearTimeout(s.timer);
    },
    resume: () => {
      paused = false;
      slots.forEach((s) => void readNow(s));
    },
    close: () => {
      closed = true;
      for (const s of slots) {
        if (s.timer) clearTimeout(s.timer);
        s.watchers.forEach((w) => w.close());
      }
      subs.clear();
    },
  };
}
