import { existsSync } from 'node:fs';
import { posix } from 'node:path';
import type { Sources } from '../workspace.js';
import { presetOf } from '../pipeline/presets/index.js';
import { createDirWatcher, WatchLimitError, type DirWatcher } from './dir-watcher.js';
import type { LiveModel } from './live-model.js';
import type { UpdateQueue } from './update-queue.js';

// How the live model hears of changes (split out of createLiveWorkspace):
// one OS watch per directory that can hold a state file, or periodic rescans where no
// events come (NFS, SSHFS, the watch limit reached, the workspace directory gone).

export interface Watching {
  mode: 'watch' | 'poll' | 'off';
  watches: number;
  notice: string | null;
}

export interface WatchOptions {
  watch?: boolean;
  poll?: boolean;
  pollMs?: number;
}

/** Every directory that can hold a step's file, plus those of checkpoint.md and the todo db. */
export function watchedDirsOf(src: Sources): Set<string> {
  const dirs = new Set<string>();
  for (const s of src.config.pipeline.steps) {
    const d = posix.dirname(s.path.split('{unit}')[0] + 'x');
    if (d !== '.') dirs.add(d);
  }
  for (const f of [src.config.sources.checkpoint, src.todos ? posix.relative(src.root, src.todos.path) : null]) {
    const d = f ? posix.dirname(posix.normalize(f)) : '.';
    if (d !== '.' && !d.startsWith('..')) dirs.add(d);
  }
  return dirs;
}

export class LiveWatch {
  readonly watching: Watching = { mode: 'off', watches: 0, notice: null };
  private watcher: DirWatcher | null = null;
  private poller: NodeJS.Timeout | null = null;
  private rootLost = false;
  private closed = false;

  constructor(
    private readonly model: LiveModel,
    private readonly queue: UpdateQueue,
    private readonly opts: WatchOptions,
  ) {}

  start(): void {
    if (this.opts.watch === false) return;
    if (this.opts.poll ?? process.env.CHECKROOM_WATCH === 'poll') return this.startPolling('polling: rescanning every 2 s (CHECKROOM_WATCH=poll)');
    const src = this.model.sources;
    const dirs = watchedDirsOf(src);
    this.watcher = createDirWatcher(src.root, (d, name) => this.onEvent(dirs, d, name));
    this.watching.mode = 'watch';
    this.watchDir('.');
    for (const d of dirs) this.watchDir(d);
    for (const d of presetOf(src.config.preset).source.watchDirs(src)) this.watchDir(d);
  }

  /** A watch will report a change of `rel` (so an action that wrote it need not re-read it). */
  reports(rel: string): boolean {
    return this.watching.mode === 'watch' && !!this.watcher?.has(posix.dirname(posix.normalize(rel)));
  }

  /**
   * The workspace directory itself deleted or moved away: its watches died with it. The last
   * state read stays on screen (an empty one would look like a fresh pipeline), the header
   * says what happened, and polling picks the directory up again if it comes back.
   */
  rootGone(): boolean {
    if (existsSync(this.model.sources.root)) return false;
    if (!this.rootLost) {
      this.rootLost = true;
      const notice = 'the workspace directory is gone (deleted or moved); showing the last state read';
      if (this.watching.mode === 'poll') this.watching.notice = notice;
      else this.startPolling(notice);
      this.model.notify(); // the same state, so the header shows the notice now
    }
    return true;
  }

  close(): void {
    this.closed = true;
    if (this.poller) clearTimeout(this.poller);
    this.watcher?.close();
    this.watching.mode = 'off';
  }

  private onEvent(dirs: ReadonlySet<string>, d: string, name: string | null): void {
    // A watched directory vanished under its watch: the parent's watch reports the deletion
    // or move (and re-reads); this late echo must not read a workspace that is gone, or one
    // that came back before polling said so.
    if (name === null) return;
    const rel = d === '.' ? name : `${d}/${name}`;
    const src = this.model.sources;
    // A directory of the preset's own created after start (a new workflow): watch it too (add is idempotent).
    const layout = presetOf(src.config.preset).source;
    if (layout.owns(rel)) for (const g of layout.watchDirs(src)) this.watchDir(g);
    // A step directory created after start (chapters/, publish/, or the parent of a nested
    // one), or deleted and created again: (re)watch everything under it, then re-read.
    const under = (w: string): boolean => w === name || w.startsWith(`${name}/`);
    if (d === '.' && [...dirs].some(under)) {
      for (const w of dirs) {
        if (!under(w)) continue;
        this.watcher?.remove(w);
        this.watchDir(w);
      }
      return void this.queue.refresh().catch(() => {});
    }
    this.queue.enqueue(rel);
  }

  private watchDir(d: string): void {
    if (!this.watcher) return;
    try {
      if (this.watcher.add(d)) this.watching.watches = this.watcher.count;
    } catch (err) {
      this.startPolling(err instanceof WatchLimitError ? err.message : String(err));
    }
  }

  private startPolling(notice: string): void {
    this.watcher?.close();
    this.watching.mode = 'poll';
    this.watching.watches = 0;
    this.watching.notice = notice;
    // Never spend more than a quarter of the time rescanning: a 50k-file tree takes ~2 s.
    const base = this.opts.pollMs ?? 2000;
    const next = (delay: number): void => {
      this.poller = setTimeout(async () => {
        const t0 = performance.now();
        if (this.rootLost && existsSync(this.model.sources.root)) this.watching.notice = 'the workspace directory came back; polling from now on (restart checkroom to watch again)';
        if (!this.rootGone()) await this.queue.refresh().catch(() => {});
        if (!this.closed) next(Math.max(base, 3 * (performance.now() - t0)));
      }, delay);
      this.poller.unref();
    };
    next(base);
  }
}
