import type { WorkspaceState } from '../types.js';
import type { WorkspaceRead } from '../recover/load.js';
import { LiveModel, type LiveReaders } from './live-model.js';
import { UpdateQueue } from './update-queue.js';
import { LiveWatch, type Watching, type WatchOptions } from './live-watch.js';

// The live model behind the control room: the sources read once, then kept true by file
// events. An event re-reads only the file it names (never the whole tree), re-derives only
// the units it touches and notifies subscribers; a path the state does
// not depend on (temp, swap and backup files, notes) is dropped unread and publishes nothing.
// A change is applied on the next turn of the loop; under a stream of changes the pause
// between batches is the last batch's cost, at most `batchMs` (update-queue.ts).
// Three parts: the model reads and derives (live-model.ts), the queue says
// when (update-queue.ts), the watch hears of changes (live-watch.ts).

export type { Watching } from './live-watch.js';

export interface LiveWorkspace {
  readonly state: WorkspaceState;
  readonly watching: Watching;
  subscribe(fn: (s: WorkspaceState) => void): () => void;
  refresh(): Promise<void>;
  /**
   * These workspace-relative paths changed (an action or a run just wrote them): each is
   * re-read once — on its watch event when a watch reports it, else now (a
   * finished run's checkpoint was read twice, once for the event and once for the touch).
   */
  touch(paths: string[]): void;
  setRunning(keys: ReadonlySet<string>): void;
  /**
   * Resolves once every file event for a change made before the call has been applied to
   * `state` (for the control socket: never staler than a scan). In poll
   * mode, where no events come, it is a rescan.
   */
  settled(): Promise<void>;
  /**
   * The workspace as a fresh read would see it, once settled, without reading 50k files again
   * (control room RSS at 50k ≤ 150 MB; the recover report and the letter read
   * and derived the whole workspace a second time, +95 MB at peak). Shared, not copied:
   * callers read it and never change it.
   */
  read(): Promise<WorkspaceRead>;
  close(): Promise<void>;
}

export interface LiveOptions extends WatchOptions {
  /** Rescan periodically instead of watching: network file systems (NFS, SSHFS) deliver no
   *  inotify events. Also chosen with CHECKROOM_WATCH=poll, and automatically at the watch limit. */
  poll?: boolean;
  /** Longest pause between two batches of a stream of events (a lone event waits for none; update-queue.ts). */
  batchMs?: number;
  pollMs?: number;
  /** How changed files are read (tests count reads). */
  readers?: Partial<LiveReaders>;
}

export async function createLiveWorkspace(dir: string, opts: LiveOptions = {}): Promise<LiveWorkspace> {
  const model = await LiveModel.open(dir, opts.readers);
  let closed = false;
  // The queue holds its batches while the watch finds the workspace directory gone.
  const queue: UpdateQueue = new UpdateQueue(model, opts.batchMs ?? 25, (): boolean => closed || watch.rootGone());
  const watch: LiveWatch = new LiveWatch(model, queue, opts);
  watch.start();
  const settled = async (): Promise<void> => {
    if (closed) return;
    if (watch.watching.mode === 'poll') return queue.refresh();
    // Two turns of the event loop: at least one poll of the watch descriptor after this
    // call, so the kernel's events for changes made before it have reached the queue.
    for (let i = 0; i < 2; i++) await new Promise((r) => setImmediate(r));
    return queue.drain();
  };
  return {
    get state() {
      return model.state;
    },
    watching: watch.watching,
    subscribe: (fn) => model.subscribe(fn),
    refresh: () => queue.refresh(),
    touch(paths) {
      for (const p of paths) if (!watch.reports(p)) queue.enqueue(p);
    },
    setRunning: (keys) => model.setRunning(keys),
    settled,
    async read() {
      // Unwatched, nothing tells the model of a change: read the disk, as a fresh read would.
      if (!closed && watch.watching.mode === 'off') await queue.refresh();
      else await settled();
      return { sources: model.sources, stateFor: (running) => model.stateFor(running) };
    },
    async close() {
      closed = true;
      model.stop();
      queue.cancel();
      watch.close();
    },
  };
}
