import type { PathKind } from './path-kind.js';
import type { LiveModel } from './live-model.js';

// When the live model reads (issue 9 item 4, split out of createLiveWorkspace): changed
// paths wait in one pending batch; a lone event is applied at once, a burst at most once per
// `batchMs`. Updates run one at a time: two quick edits of checkpoint.md land in order, and
// a full reload never interleaves with an incremental one.

export class UpdateQueue {
  private pending = new Map<string, PathKind>();
  private timer: NodeJS.Timeout | null = null;
  private lastFlush = -Infinity;
  private chain: Promise<void> = Promise.resolve();

  /** `hold()` true: nothing is applied (closed, or the workspace directory is gone). */
  constructor(
    private readonly model: LiveModel,
    private readonly batchMs: number,
    private readonly hold: () => boolean,
  ) {}

  /** Run `f` after every update queued before it. */
  serial(f: () => Promise<void>): Promise<void> {
    return (this.chain = this.chain.then(f, f));
  }

  refresh(): Promise<void> {
    return this.serial(() => this.model.reload());
  }

  /** A workspace-relative path changed; dropped unread when the state does not depend on it. */
  enqueue(rel: string): void {
    const kind = this.model.classify(rel);
    if (!kind) return;
    this.pending.set(rel, kind);
    // At once when things were quiet (the events of one write arrive together); a burst
    // gets one update per batchMs.
    if (!this.timer) this.timer = setTimeout(() => this.flush(), Math.max(0, this.lastFlush + this.batchMs - performance.now()));
  }

  flush(): void {
    this.cancel();
    const batch = this.pending;
    this.pending = new Map();
    if (!batch.size || this.hold()) return;
    this.lastFlush = performance.now();
    void this.serial(() => this.model.apply(batch).catch(() => this.model.reload().catch(() => {})));
  }

  /** Resolves once every path queued before the call (and any queued meanwhile) is applied. */
  async drain(): Promise<void> {
    for (;;) {
      const tail = this.chain;
      if (this.pending.size) this.flush();
      await this.chain;
      if (tail === this.chain && !this.pending.size) return;
    }
  }

  cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
