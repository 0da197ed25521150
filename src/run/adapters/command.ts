import { expandArgv } from '../attempt/placeholders.js';
import type { AgentAdapter } from './types.js';

// `adapter: command` (the default): today's behaviour. The argv is the configured command
// with placeholders expanded as literal arguments; the output is plain text shown as it is;
// the outcome is classified by the marker, the exit and the regex rules (classify.ts).

const VOLATILE = /\{(?:attempt|last_error|backup|partial)\}/;

export const commandAdapter: AgentAdapter = {
  id: 'command',
  build(agent, values) {
    return {
      argv: expandArgv(agent.command, values),
      env: {},
      volatile: agent.command.flatMap((el, i) => (VOLATILE.test(el) ? [i] : [])),
    };
  },
  read: (facts) => facts,
  render: (line) => line,
  classify: () => null,
  canResume: false,
};
