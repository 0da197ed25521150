import { existsSync } from 'node:fs';
import { posix } from 'node:path';
import type { StepDef, WorkspaceState } from '../types.js';
import { readSources, type Sources } from '../workspace.js';
import { idleCollector } from './idle-gc.js';
import { pathClassifier, type PathKind } from './path-kind.js';
import { applyPaths, type Applied } from './apply-events.js';
import { liveDeriver } from './live-state.js';
import { createDirWatcher, WatchLimitError, type DirWatcher } from './dir-watcher.js';
import { presetOf } from '../pipeline/presets/index.js';

// The live model behind the control room: the sources read once, then kept true by file
// events. An event re-reads only the file it names (never the whole tree), re-derives only
// the units it touches (issue 10 item 3) and notifies subscribers; a path the state does
// not depend on (temp, swap and backup files, notes) is dropped unread and publishes nothing.
// A lone event is applied at once; a burst is applied at most once per `batchMs`.

export interface Watching {
  mode: 'watch' | 'poll' | 'off';
  watches: number;
  notice: string | null;
}

export interface LiveWorkspace {
  readonly state: WorkspaceState;
  readonly watching: Watching;
  subscribe(fn: (s: WorkspaceState) => void): () => void;
  refresh(): Promise<void>;
  /** Re-read these workspace-relative paths now (used by actions that just wrote them). */
  touch(paths: string[]): void;
  setRunning(keys: ReadonlySet<string>): void;
  /**
   * Resolves once every file event for a change made before the call has been applied to
   * `state` (for the control socket, issue 10 item 4: never staler than a scan). In poll
   * mode, where no events come, it is a rescan.
   */
  settled(): Promise<void>;
  close(): Promise<void>;
}

export interface LiveOptions {
  watch?: boolean;
  /** Rescan periodically instead of watching: network file systems (NFS, SSHFS) deliver no
   *  inotify events. Also chosen with CHECKROOM_WATCH=poll, and automatically at the watch limit. */
  poll?: boolean;
  /** Least time between two applied batches of events (a lone event waits for none). */
  batchMs?: number;
  pollMs?: number;
}

// eslint-disable-next-line max-lines-per-function -- one closure over the watcher, the sources read and the subscribers; its state is shared by every handler, so a split is the redesign of issue 9 item 4 (one port)
export async function createLiveWorkspace(dir: string, opts: LiveOptions = {}): Promise<LiveWorkspace> {
  let src: Sources = await readSources(dir);
  let running: ReadonlySet<string> = new Set();
  const deriver = liveDeriver();
  let state = deriver.derive(src, running, null);
  const subs = new Set<(s: WorkspaceState) => void>();
  const watching: Watching = { mode: 'off', watches: 0, notice: null };
  const batchMs = opts.batchMs ?? 25;
  let pending = new Map<string, PathKind>();
  let timer: NodeJS.Timeout | null = null;
  let lastFlush = -Infinity;
  let poller: NodeJS.Timeout | null = null;
  let watcher: DirWatcher | null = null;
  let closed = false;

  const idle = idleCollector();
  const notify = (): void => {
    for (const fn of subs) fn(state);
    idle.poke();
  };
  /** `change` null: everything was read again. */
  const publish = (change: Applied | null): void => {
    state = deriver.derive(src, running, change);
    notify();
  };
  const layout = (): Parameters<typeof pathClassifier>[0] => ({
    pipeline: src.config.pipeline,
    checkpoint: src.config.sources.checkpoint,
    todoDb: src.todos ? posix.relative(src.root, src.todos.path) : null,
  });
  let classify = pathClassifier(layout());


  const stepsByDir = (): Map<string, StepDef[]> => {
    const m = new Map<string, StepDef[]>();
    for (const s of src.config.pipeline.steps) {
      const d = posix.dirname(s.path.split('{unit}')[0] + 'x');
      m.set(d, [...(m.get(d) ?? []), s]);
    }
    return m;
  };

  const reload = async (): Promise<void> => {
    src = await readSources(src.root);
    classify = pathClassifier(layout());
    publish(null);
  };
  // Updates run one at a time: two quick edits of checkpoint.md must land in order, and a
  // full reload must not interleave with an incremental one.
  let chain: Promise<void> = Promise.resolve();
  const serial = (f: () => Promise<void>): Promise<void> => (chain = chain.then(f, f));
  const refresh = (): Promise<void> => serial(reload);

  /** Apply a batch of changed paths (each already known to matter). */
  const apply = async (paths: Map<string, PathKind>): Promise<void> => {
    if ([...paths.values()].some((k) => k.config)) return reload();
    // A preset's own files (gate-file workflows are small: anything under .claude/) are re-read whole.
    const layout = presetOf(src.config.preset).source;
    if (!layout.incremental) return [...paths.keys()].some((p) => layout.owns(p)) ? reload() : undefined;
    publish(await applyPaths(src, paths));
  };

  // The workspace directory itself deleted or moved away: its watches died with it. The last
  // state read stays on screen (an empty one would look like a fresh pipeline), the header
  // says what happened, and polling picks the directory up again if it comes back.
  let rootLost = false;
  const rootGone = (): boolean => {
    if (existsSync(src.root)) return false;
    if (!rootLost) {
      rootLost = true;
      const notice = 'the workspace directory is gone (deleted or moved); showing the last state read';
      if (watching.mode === 'poll') watching.notice = notice;
      else startPolling(notice);
      notify(); // the same state, so the header shows the notice now
    }
    return true;
  };

  const flush = (): void => {
    if (timer) clearTimeout(timer);
    timer = null;
    const batch = pending;
    pending = new Map();
    if (!batch.size || closed || rootGone()) return;
    lastFlush = performance.now();
    void serial(() => apply(batch).catch(() => reload().catch(() => {})));
  };

  const enqueue = (rel: string): void => {
    const own = presetOf(src.config.preset).source;
    const kind = classify(rel) ?? (!own.incremental && own.owns(rel) ? { hits: [] } : null);
    if (!kind) return; // not part of the state: nothing to read, derive or show
    pending.set(rel, kind);
    // At once when things were quiet (the events of one write arrive together); a burst
    // gets one update per batchMs.
    if (!timer) timer = setTimeout(flush, Math.max(0, lastFlush + batchMs - performance.now()));
  };

  const startPolling = (notice: string): void => {
    watcher?.close();
    watching.mode = 'poll';
    watching.watches = 0;
    watching.notice = notice;
    // Never spend more than a quarter of the time rescanning: a 50k-file tree takes ~2 s.
    const base = opts.pollMs ?? 2000;
    const next = (delay: number): void => {
      poller = setTimeout(async () => {
        const t0 = performance.now();
        if (rootLost && existsSync(src.root)) watching.notice = 'the workspace directory came back; polling from now on (restart checkroom to watch again)';
        if (!rootGone()) await refresh().catch(() => {});
        if (!closed) next(Math.max(base, 3 * (performance.now() - t0)));
      }, delay);
      poller.unref();
    };
    next(base);
  };

  const poll = opts.poll ?? process.env.CHECKROOM_WATCH === 'poll';
  if (opts.watch !== false && poll) startPolling('polling: rescanning every 2 s (CHECKROOM_WATCH=poll)');
  else if (opts.watch !== false) {
    // Every directory that can hold a step's file, plus those of checkpoint.md and the todo db.
    const watchedDirs = new Set<string>([...stepsByDir().keys()].filter((d) => d !== '.'));
    for (const f of [src.config.sources.checkpoint, src.todos ? posix.relative(src.root, src.todos.path) : null]) {
      const d = f ? posix.dirname(posix.normalize(f)) : '.';
      if (d !== '.' && !d.startsWith('..')) watchedDirs.add(d);
    }
    const watchDir = (d: string): void => {
      if (!watcher) return;
      try {
        if (watcher.add(d)) watching.watches = watcher.count;
      } catch (err) {
        startPolling(err instanceof WatchLimitError ? err.message : String(err));
      }
    };
    watcher = createDirWatcher(src.root, (d, name) => {
      // A watched directory vanished under its watch: the parent's watch reports the
      // deletion or move (and re-reads); this late echo must not read a workspace that is
      // gone, or one that came back before polling said so.
      if (name === null) return;
      const rel = d === '.' ? name : `${d}/${name}`;
      // A directory of the preset's own created after start (a new workflow): watch it too (add is idempotent).
      const layout = presetOf(src.config.preset).source;
      if (layout.owns(rel)) for (const g of layout.watchDirs(src)) watchDir(g);
      // A step directory created after start (chapters/, publish/, or the parent of a nested
      // one), or deleted and created again: (re)watch everything under it, then re-read.
      if (d === '.' && [...watchedDirs].some((w) => w === name || w.startsWith(`${name}/`))) {
        for (const w of watchedDirs) {
          if (w !== name && !w.startsWith(`${name}/`)) continue;
          watcher?.remove(w);
          watchDir(w);
        }
        return void refresh().catch(() => {});
      }
      enqueue(rel);
    });
    watching.mode = 'watch';
    watchDir('.');
    for (const d of watchedDirs) watchDir(d);
    for (const d of presetOf(src.config.preset).source.watchDirs(src)) watchDir(d);
  }

  return {
    get state() {
      return state;
    },
    watching,
    subscribe(fn) {
      subs.add(fn);
      return () => subs.delete(fn);
    },
    refresh,
    touch(paths) {
      for (const p of paths) enqueue(p);
    },
    setRunning(keys) {
      const units = new Set<string>();
      for (const k of keys) if (!running.has(k)) units.add(k.slice(0, k.lastIndexOf('/')));
      for (const k of running) if (!keys.has(k)) units.add(k.slice(0, k.lastIndexOf('/')));
      running = keys;
      publish({ units, structure: false });
    },
    async settled() {
      if (closed) return;
      if (watching.mode === 'poll') return refresh();
      // Two turns of the event loop: at least one poll of the watch descriptor after this
      // call, so the kernel's events for changes made before it have reached enqueue().
      for (let i = 0; i < 2; i++) await new Promise((r) => setImmediate(r));
      for (;;) {
        const tail = chain;
        if (pending.size) flush();
        await chain;
        if (tail === chain && !pending.size) return;
      }
    },
    async close() {
      closed = true;
      idle.stop();
      if (timer) clearTimeout(timer);
      if (poller) clearTimeout(poller);
      watcher?.close();
      watching.mode = 'off';
    },
  };
}
