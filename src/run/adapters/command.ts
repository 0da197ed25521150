import { expandArgv } from '../attempt/placeholders.js';
import type { AgentAdapter } from './types.js';

// `adapter: command` (the default): today's behaviour. The argv is the configured command
// with placeholders expanded as literal arguments; the output is plain text shown as it is;
// the outcome is classified by the marker, the exit and the regex rules (classify.ts). It
// reads only the keys every agent has (command:, args:).

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
  config: {
    check: (_a, is) => is.need('command', 'an agent needs a command: argument array (or adapter: claude-code with a prompt:)'),
    // `args:` on a command agent: appended to its command, like for the other adapters.
    resolve: (a, agent) => (a.args ? { ...agent, command: [...agent.command, ...a.args] } : agent),
  },
};
