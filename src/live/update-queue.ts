import type { PathKind } from './path-kind.js';
import type { LiveModel } from './live-model.js';

// When the live model reads (split out of createLiveWorkspace): changed
// paths wait in one pending batch, applied one batch at a time: two quick edits of
// checkpoint.md land in order, and a full reload never interleaves with an incremental one.
//
// No fixed window on the way to the screen: a change is applied on the
// next turn of the event loop (the other events of the same write, read in the same poll,
// join it). Under a stream of changes, the pause before the next batch is what the last one
// cost — its read, derivation and whatever its subscribers did up to the next turn (the
// store and the frame) — capped at `batchMs`: the control room spends at most about half its
// time on file events, and a marker in a burst waits for one batch, not for a timer.

export class UpdateQueue {
  private pending = new Map<string, PathKind>();
  private timer: NodeJS.Timeout | NodeJS.Immediate | null = null;
  /** Batches applied but not yet past their subscribers' turn. */
  private inFlight = 0;
  /** No batch starts before this (performance.now()): the last batch's cost after it ended. */
  private nextAt = -Infinity;
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
    this.schedule();
  }

  private schedule(): void {
    if (this.timer || this.inFlight > 0 || !this.pending.size) return;
    const wait = this.nextAt - performance.now();
    this.timer = wait > 0 ? setTimeout(() => this.flush(), wait) : setImmediate(() => this.flush());
  }

  flush(): void {
    this.cancel();
    const batch = this.pending;
    this.pending = new Map();
    if (!batch.size || this.hold()) return;
    const t0 = performance.now();
    this.inFlight++;
    const applied = this.serial(() => this.model.apply(batch).catch(() => this.model.reload().catch(() => {})));
    // Past the subscribers' turn (the store's update and React's frame run in it), the cost is known.
    void applied.then(() =>
      setImmediate(() => {
        this.inFlight--;
        const now = performance.now();
        this.nextAt = now + Math.min(this.batchMs, now - t0);
        this.schedule();
      }),
    );
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
    if (this.timer) {
      clearTimeout(this.timer as NodeJS.Timeout);
      clearImmediate(this.timer as NodeJS.Immediate);
    }
    this.timer = null;
  }
}
