import type { AgentDef } from '../../pipeline/config-types.js';
import { claudeCodeAdapter } from './claude-code.js';
import { commandAdapter } from './command.js';
import { jsonlFor } from './jsonl.js';
import type { AgentAdapter } from './types.js';

// The registry of adapters (STYLE.md: extension points are values in a registry). Adding a
// CLI is one file and one row here.

export const adapterFor = (agent: AgentDef): AgentAdapter => {
  switch (agent.adapter) {
    case 'claude-code':
      return claudeCodeAdapter;
    case 'jsonl':
      return jsonlFor(agent.cli?.jsonl ?? {});
    default:
      return commandAdapter;
  }
};

export * from './types.js';
