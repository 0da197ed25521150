import { startProcess } from '../process/process.js';
import type { Executor } from './types.js';

// Today's executor: the agent as a process group on this machine (src/run/process/process.ts), its
// output held by a keeper so it outlives checkroom. It has no adopt(): a
// local run of a dead checkroom is adopted or ended on restart by pid, start time and run
// token (supervisor-restart.ts, supervisor-adopt.ts).

export const localExecutor: Executor = {
  name: 'local',
  start: async (spec) => startProcess(spec),
};
