import { startProcess } from '../process.js';
import type { Executor } from './types.js';

// Today's executor: the agent as a process group on this machine (src/run/process.ts,
// unchanged). It has no adopt(): a local run of a dead checkroom is reaped on restart
// (supervisor-restart.ts).

export const localExecutor: Executor = {
  name: 'local',
  start: async (spec) => startProcess(spec),
};
