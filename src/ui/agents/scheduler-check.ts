import { loadConfig } from '../../pipeline/config/config.js';
import { readScheduler, type SchedulerSource } from '../../sources/scheduler.js';
import { scheduledAgent } from '../../run/executors/registry.js';
import type { WorkspaceState } from '../../types.js';

// The scheduler as a fourth source of the Sources view, asked after workspace changes but at
// most every 2 s (one squeue answers for the whole cluster), and only when an agent of the
// workspace runs where a scheduler queues it (an executor with a SchedulerHook).

export const schedulerCheck = (ws: () => WorkspaceState, publish: (s: SchedulerSource) => void, now: () => Date, everyMs = 2_000): (() => Promise<void>) => {
  let at = -Infinity;
  let busy = false;
  return async () => {
    const t = now().getTime();
    if (busy || t - at < everyMs) return;
    at = t;
    busy = true;
    const w = ws();
    let config: Awaited<ReturnType<typeof loadConfig>> | null = null;
    try {
      config = await loadConfig(w.root).catch(() => null);
      if (!config || !scheduledAgent(config)) return;
      const found = await readScheduler(w.root, config, w.cells);
      if (found) publish(found);
    } catch (err) {
      publish({ executor: (config && scheduledAgent(config)?.name) ?? 'scheduler', jobs: [], findings: [], error: (err as Error).message });
    } finally {
      busy = false;
    }
  };
};
