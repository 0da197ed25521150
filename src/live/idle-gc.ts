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

export interface IdleCollector {
  /** Call after each update; a collection runs once things have been quiet for `quietMs`. */
  poke(): void;
  stop(): void;
}

export function idleCollector(quietMs = 1500, growthBytes = 24 * 2 ** 20): IdleCollector {
  let timer: NodeJS.Timeout | null = null;
  let baseline = process.memoryUsage().heapUsed;
  return {
    poke() {
      // Under a steady stream of updates there is no quiet moment: collect right after this
      // update has been delivered once the garbage is twice the usual allowance.
      if (process.memoryUsage().heapUsed > baseline + 2 * growthBytes) {
        setImmediate(() => {
          collector()?.();
          baseline = process.memoryUsage().heapUsed;
        });
        return;
      }
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => {
        timer = null;
        if (process.memoryUsage().heapUsed < baseline + growthBytes) return;
        collector()?.();
        baseline = process.memoryUsage().heapUsed;
      }, quietMs);
      timer.unref();
    },
    stop() {
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}
