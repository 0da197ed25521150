import { killRunNow, type RunTag } from './members.js';

// The runs this process has started and not yet seen end. A shutdown that ran out of time
// (bounded) stops them synchronously from here instead of leaving them behind.

const live = new Map<string, RunTag>();

export const noteLiveRun = (runId: string, tag: RunTag): void => void live.set(runId, tag);
export const forgetLiveRun = (runId: string): void => void live.delete(runId);

/** SIGKILL every process of every live run, now. */
export const killLiveRunsNow = (): void => {
  for (const tag of live.values()) killRunNow(tag);
};
