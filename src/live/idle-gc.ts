import v8 from 'node:v8';
import vm from 'node:vm';

// A long-running control room re-derives the state after every batch of file events. At
// 50k files each derivation leaves a few MB that outlive the young generation, and V8 on a
// large machine lets that garbage grow the heap to ~300 MB before collecting (measured in
// `npm run bench`). Collecting once the workspace has been quiet for a moment keeps RSS near
// the live set without touching the latency of the next update.

let gc: (() => void) | null | undefined;

const collector = (): (() => void) | null => {
  if (gc !== undefined) return gc;
  try {
    v8.setFlagsFromString('--expose-gc');
    gc = vm.runInNewContext('gc') as () => void;
  } catch {
    gc = null;
  }
  return gc;
};

/**
 * Keep V8's young generation at its first size (control room RSS at 50k ≤
 * 150 MB). Reading 50k files grew it to 2 × 16 MB of semi-spaces that stay committed for the
 * whole session, although what survives a read is old by then: measured at 50k, RSS 151 →
 * 126 MB after the read, with the same CPU (`--max-semi-space-size` on the command line does
 * the same, but the bin cannot pass it). Process-wide on purpose: the live model is what
 * makes a control room's heap large. Before the first read, once.
 */
let lean = false;
export function keepYoungGenerationSmall(): void {
  if (lean) return;
  lean = true;
  try {
    v8.setFlagsFromString('--semi-space-growth-factor=1');
  } catch {
    // an embedder without the flag: the default sizes
  }
}

/**
 * Let the old generation grow by at most half of what a full collection left live (control room RSS at 50k ≤ 150 MB). V8 picks a factor of up to 4× for a fast
 * collector on a large machine: after the collection during the first read at 50k files
 * (36 MB live) the heap grew to ~130 MB of mostly dead objects before the next one, and RSS
 * keeps what the heap once took. 1.5× (V8's own memory-saving modes use 1.3×) measured:
 * peak RSS 157 → 140 MB, ~10% more CPU until every cell is drawn. For the control room,
 * a long-lived process where memory is the scarce side; the CLI commands keep V8's default.
 */
let bounded = false;
export function growHeapByHalf(): void {
  if (bounded) return;
  bounded = true;
  try {
    v8.setFlagsFromString('--heap-growing-percent=50');
  } catch {
    // an embedder without the flag: V8's own factor
  }
}

export interface IdleCollector {
  /** Call after each update; a collection runs once things have been quiet for `quietMs`. */
  poke(): void;
  stop(): void;
}

// The heap's size, asked after every update: process.memoryUsage() also reads the RSS from
// /proc (a file read per marker), the heap statistics do not.
const heapUsed = (): number => v8.getHeapStatistics().used_heap_size;

export function idleCollector(quietMs = 1500, growthBytes = 24 * 2 ** 20): IdleCollector {
  let timer: NodeJS.Timeout | null = null;
  let baseline = heapUsed();
  return {
    poke() {
      // Under a steady stream of updates there is no quiet moment: collect right after this
      // update has been delivered once the garbage is twice the usual allowance.
      if (heapUsed() > baseline + 2 * growthBytes) {
        setImmediate(() => {
          collector()?.();
          baseline = heapUsed();
        });
        return;
      }
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => {
        timer = null;
        if (heapUsed() < baseline + growthBytes) return;
        collector()?.();
        baseline = heapUsed();
      }, quietMs);
      timer.unref();
    },
    stop() {
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}
