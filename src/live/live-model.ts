import { posix } from 'node:path';
import type { WorkspaceState } from '../types.js';
import { readSources, stateOf, type Sources } from '../workspace.js';
import { readCheckpoint } from '../checkpoint/io.js';
import { presetOf } from '../pipeline/presets/index.js';
import { idleCollector, keepYoungGenerationSmall, type IdleCollector } from './idle-gc.js';
import { pathClassifier, type PathKind } from './path-kind.js';
import { applyPaths, type Applied } from './apply-events.js';
import { liveDeriver, type LiveDeriver } from './live-state.js';
import { keepLastLines } from './lean-facts.js';
import { readCuts, type CutMemo } from '../triage/cut-read.js';
import type { Cut, CutMap } from '../triage/cut-evidence.js';

// The live workspace's data: the sources as last read, the cells in flight, the derived
// state and who listens (split out of the one closure createLiveWorkspace
// was). It reads and derives; when to read (events, polls, touches) is the queue's and the
// watch's business (update-queue.ts, live-watch.ts).

/** What the live model reads a changed file with; tests wrap them to count reads. */
export interface LiveReaders {
  checkpoint: typeof readCheckpoint;
}

const unitOf = (key: string): string => key.slice(0, key.lastIndexOf('/'));

export class LiveModel {
  state: WorkspaceState;
  private running: ReadonlySet<string> = new Set();
  private readonly deriver: LiveDeriver = liveDeriver();
  private readonly subs = new Set<(s: WorkspaceState) => void>();
  private readonly idle: IdleCollector = idleCollector();
  private classifier: (rel: string) => PathKind | null;
  private cutRead: Promise<void> = Promise.resolve();

  private constructor(
    private src: Sources,
    private readonly readers: LiveReaders,
    /** The journal's cut evidence, folded as the journal grows. */
    private readonly cutMemo: CutMemo,
  ) {
    keepLastLines(src.scan.files);
    this.state = this.deriver.derive(src, this.running, null);
    this.classifier = pathClassifier(this.layout());
  }

  static async open(dir: string, readers: Partial<LiveReaders> = {}): Promise<LiveModel> {
    keepYoungGenerationSmall();
    const cutMemo: CutMemo = { value: null };
    return new LiveModel(await readSources(dir, undefined, undefined, cutMemo), { checkpoint: readCheckpoint, ...readers }, cutMemo);
  }

  get sources(): Sources {
    return this.src;
  }

  subscribe(fn: (s: WorkspaceState) => void): () => void {
    this.subs.add(fn);
    return () => this.subs.delete(fn);
  }

  /** The same state to every subscriber again (the header has news: a notice). */
  notify(): void {
    for (const fn of this.subs) fn(this.state);
    this.idle.poke();
  }

  /** `change` null: everything was read again. */
  private publish(change: Applied | null): void {
    this.state = this.deriver.derive(this.src, this.running, change);
    this.notify();
  }

  /** What a changed path is to the state; null: nothing the state is made of. */
  classify(rel: string): PathKind | null {
    const own = presetOf(this.src.config.preset).source;
    return this.classifier(rel) ?? (!own.incremental && own.owns(rel) ? { hits: [] } : null);
  }

  async reload(): Promise<void> {
    this.src = await readSources(this.src.root, undefined, undefined, this.cutMemo);
    keepLastLines(this.src.scan.files);
    this.classifier = pathClassifier(this.layout());
    this.publish(null);
  }

  /** Apply a batch of changed paths (each already known to matter). */
  async apply(paths: ReadonlyMap<string, PathKind>): Promise<void> {
    if ([...paths.values()].some((k) => k.config)) return this.reload();
    // A preset's own files (gate-file workflows are small: anything under .claude/) are re-read whole.
    const layout = presetOf(this.src.config.preset).source;
    if (!layout.incremental) return [...paths.keys()].some((p) => layout.owns(p)) ? this.reload() : undefined;
    this.publish(await applyPaths(this.src, paths, this.readers));
  }

  /**
   * The cells in flight, from the supervisor (the running set flows one way,
   * down; it comes back up only as cells of the next state). The same set publishes nothing.
   */
  setRunning(keys: ReadonlySet<string>): void {
    const units = new Set<string>();
    for (const k of keys) if (!this.running.has(k)) units.add(unitOf(k));
    for (const k of this.running) if (!keys.has(k)) units.add(unitOf(k));
    const ended = [...this.running].some((k) => !keys.has(k));
    this.running = keys;
    if (units.size) this.publish({ units, structure: false });
    // A run that ended was journalled first (supervisor-attempt.ts): how it ended is evidence.
    if (ended) void this.refreshCuts();
  }

  /** Read what the journal gained and re-derive the units whose cut evidence changed. */
  refreshCuts(): Promise<void> {
    this.cutRead = this.cutRead.then(async () => {
      try {
        this.setCuts(await readCuts(this.src.root, { read: false, write: false, memo: this.cutMemo }));
      } catch {
        // an unreadable journal changes no evidence; the journal reader warns about it
      }
    });
    return this.cutRead;
  }

  private setCuts(cuts: CutMap): void {
    const old = this.src.cuts ?? new Map();
    const units = new Set<string>();
    const same = (a: Cut, b: Cut | undefined): boolean =>
      !!b && a.event === b.event && a.at === b.at && a.attempt === b.attempt && a.path === b.path;
    for (const [k, c] of cuts) if (!same(c, old.get(k))) units.add(unitOf(k));
    for (const k of old.keys()) if (!cuts.has(k)) units.add(unitOf(k));
    if (!units.size) return;
    this.src = { ...this.src, cuts };
    this.publish({ units, structure: false });
  }

  /**
   * The state of these sources with `running` in flight (recovery: the journal's live runs):
   * the live state itself when it shows that set, else derived afresh (no second
   * 50k-cell state for the recover report).
   */
  stateFor(running: ReadonlySet<string>): WorkspaceState {
    const same = running.size === this.running.size && [...running].every((k) => this.running.has(k));
    return same ? this.state : stateOf(this.src, running);
  }

  stop(): void {
    this.idle.stop();
  }

  private layout(): Parameters<typeof pathClassifier>[0] {
    const src = this.src;
    return { pipeline: src.config.pipeline, checkpoint: src.config.sources.checkpoint, todoDb: src.todos ? posix.relative(src.root, src.todos.path) : null };
  }
}
