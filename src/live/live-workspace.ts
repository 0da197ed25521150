import { existsSync } from 'node:fs';
import { posix, join } from 'node:path';
import type { StepDef, WorkspaceState } from '../types.js';
import { readSources, stateOf, type Sources } from '../workspace.js';
import { readCheckpoint } from '../checkpoint/io.js';
import { readLevel2 } from '../sources/level2.js';
import { confineOf, readEntries, scanStep } from '../scan/scan.js';
import { readFileFacts } from '../scan/file-facts.js';
import { collectUnits, fileNameMatcher } from '../scan/units.js';
import { batchesOf } from '../state/derive.js';
import { idleCollector } from './idle-gc.js';
import { createDirWatcher, WatchLimitError, type DirWatcher } from './dir-watcher.js';
import { gateWatchDirs } from '../gates/state.js';

// The live model behind the control room: the sources read once, then kept true by file
// events. An event re-reads only the file it names (never the whole tree), re-derives the
// state in memory and notifies subscribers; bursts are batched into one update.

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
  close(): Promise<void>;
}

export interface LiveOptions {
  watch?: boolean;
  /** Rescan periodically instead of watching: network file systems (NFS, SSHFS) deliver no
   *  inotify events. Also chosen with CHECKROOM_WATCH=poll, and automatically at the watch limit. */
  poll?: boolean;
  /** Quiet period before a batch of events is applied. */
  batchMs?: number;
  pollMs?: number;
}

const CONFIG_FILES = new Set(['checkroom.yaml', 'checkroom.yml']);

export async function createLiveWorkspace(dir: string, opts: LiveOptions = {}): Promise<LiveWorkspace> {
  let src: Sources = await readSources(dir);
  let running: ReadonlySet<string> = new Set();
  let state = stateOf(src, running);
  const subs = new Set<(s: WorkspaceState) => void>();
  const watching: Watching = { mode: 'off', watches: 0, notice: null };
  const batchMs = opts.batchMs ?? 25;
  let pending = new Set<string>();
  let timer: NodeJS.Timeout | null = null;
  let poller: NodeJS.Timeout | null = null;
  let watcher: DirWatcher | null = null;
  let closed = false;

  const idle = idleCollector();
  const publish = (): void => {
    state = stateOf(src, running);
    for (const fn of subs) fn(state);
    idle.poke();
  };

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
    publish();
  };
  // Updates run one at a time: two quick edits of checkpoint.md must land in order, and a
  // full reload must not interleave with an incremental one.
  let chain: Promise<void> = Promise.resolve();
  const serial = (f: () => Promise<void>): Promise<void> => (chain = chain.then(f, f));
  const refresh = (): Promise<void> => serial(reload);

  /** Apply a batch of changed paths; returns true when a full reload was needed instead. */
  const apply = async (paths: Set<string>): Promise<void> => {
    const { pipeline, sources } = src.config;
    // One confinement per batch of events: symlinks out of the workspace stay unread (issue 8 item 7).
    const confine = confineOf(src.root, pipeline);
    if ([...paths].some((p) => CONFIG_FILES.has(p))) return reload();
    // Gate-file workflows (preset: gates) are small: any change under .claude/ re-reads them all.
    if (src.gates) return [...paths].some((p) => p === '.claude' || p.startsWith('.claude/')) ? reload() : undefined;
    let unitsChanged = false;
    const todoDb = src.todos ? posix.normalize(posix.relative(src.root, src.todos.path)) : null;
    for (const rel of paths) {
      if (todoDb && (rel === todoDb || rel === `${todoDb}-wal`)) {
        src.todos = readLevel2(src.root, src.config);
        continue;
      }
      if (rel === posix.normalize(sources.checkpoint)) {
        src.checkpoint = await readCheckpoint(src.root, pipeline, sources.checkpoint);
        for (const u of (src.checkpoint?.batches ?? []).flatMap((b) => b.rows.map((r) => r.unit))) {
          if (!src.units.includes(u)) (src.units.push(u), (unitsChanged = true));
        }
        continue;
      }
      if (src.scan.artifacts.has(rel)) {
        const f = readFileFacts(join(src.root, rel), rel, null, { confine });
        src.scan.artifacts.set(rel, f.exists && f.bytes > 0 && !f.error);
      }
      for (const step of pipeline.steps) {
        if (step.kind === 'entry') {
          if (step.path === rel) {
            const { facts, units } = readEntries(src.root, rel, pipeline.units.pattern, confine);
            src.scan.entries.set(rel, units);
            src.scan.entryFiles.set(rel, facts);
          }
          continue;
        }
        const m = fileNameMatcher(step, pipeline.units.pattern);
        if (!m) continue;
        const hit = m.re.exec(posix.basename(rel));
        if (!hit || posix.dirname(rel) !== m.dir) continue;
        const unit = hit[1];
        if (!src.units.includes(unit)) {
          if (pipeline.units.list) continue;
          src.units.push(unit);
          unitsChanged = true;
        }
        const facts = scanStep(src.root, step, unit, confine);
        src.scan.files.set(facts.path, facts);
      }
    }
    // A checkpoint row removed, a unit's last file deleted or moved away: the unit goes too.
    const gone = [...paths].some((p) => p === posix.normalize(sources.checkpoint) || src.scan.files.get(p)?.exists === false);
    if (gone && !pipeline.units.list) {
      const fresh = collectUnits(src.root, pipeline, (src.checkpoint?.batches ?? []).flatMap((b) => b.rows.map((r) => r.unit)), batchesOf(pipeline, src.checkpoint).flatMap((b) => b.units));
      if (fresh.join() !== src.units.join()) ((src.units = fresh), (unitsChanged = true));
    }
    if (unitsChanged) {
      src.units.sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
      // A new unit's other cells have never been read.
      for (const unit of src.units)
        for (const step of pipeline.steps)
          if (step.kind === 'file' && !src.scan.files.has(step.path.split('{unit}').join(unit))) {
            const facts = scanStep(src.root, step, unit, confine);
            src.scan.files.set(facts.path, facts);
          }
    }
    src.scan.scannedAt = Date.now();
    publish();
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
      publish(); // the same state, so the header shows the notice now
    }
    return true;
  };

  const flush = (): void => {
    timer = null;
    const batch = pending;
    pending = new Set();
    if (!batch.size || closed || rootGone()) return;
    void serial(() => apply(batch).catch(() => reload().catch(() => {})));
  };

  const enqueue = (rel: string): void => {
    pending.add(rel);
    if (!timer) timer = setTimeout(flush, batchMs);
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
      if (name === null) return enqueue(d);
      const rel = d === '.' ? name : `${d}/${name}`;
      // A workflow directory created after start: watch it too (add is idempotent).
      if (src.gates && (rel === '.claude' || rel.startsWith('.claude/'))) for (const g of gateWatchDirs(src.gates)) watchDir(g);
      // A step directory created after start (chapters/, publish/, or the parent of a nested
      // one), or deleted and created again: (re)watch everything under it, then re-read.
      if (d === '.' && [...watchedDirs].some((w) => w === name || w.startsWith(`${name}/`))) {
        for (const w of watchedDirs) if (w === name || w.startsWith(`${name}/`)) (watcher?.remove(w), watchDir(w));
        return void refresh().catch(() => {});
      }
      enqueue(rel);
    });
    watching.mode = 'watch';
    watchDir('.');
    for (const d of watchedDirs) watchDir(d);
    if (src.gates) for (const d of gateWatchDirs(src.gates)) watchDir(d);
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
      running = keys;
      publish();
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
