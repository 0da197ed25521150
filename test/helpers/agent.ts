import type { AgentDef } from '../../src/pipeline/config/types.js';
import type { RawConfig } from '../../src/pipeline/schema.js';
import { toAgent } from '../../src/pipeline/config/agent.js';

// One agent fixture, resolved by the config's own code from an empty agent: when AgentDef
// gains a field (the executor, its Slurm and Kubernetes options did), the fixture gains it
// with its default instead of drifting from the type (issue 19 item 4).

/** A `writer` command agent with the config's defaults, short timeouts, and `over` on top. */
export const agentDef = (over: Partial<AgentDef> = {}): AgentDef => ({
  ...toAgent('writer', {}, {} as RawConfig),
  idleTimeoutMs: 1000,
  timeoutMs: 1000,
  graceMs: 0,
  concurrency: 1,
  ...over,
});
