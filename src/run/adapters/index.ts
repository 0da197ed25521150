import type { AgentDef } from '../../pipeline/config/types.js';
import { claudeCodeAdapter } from './claude-code.js';
import { commandAdapter } from './command.js';
import { jsonlAdapter } from './jsonl.js';
import type { AgentAdapter } from './types.js';

// The registry of adapters (STYLE.md: extension points are values in a registry). Adding a
// CLI is one file and one row here: the schema's `adapter:` enum, its keys and rules, the
// resolved agent and the runner all ask this list (docs/architecture.md, How to add).

const BUILT_IN: readonly AgentAdapter[] = [
  commandAdapter, // the first row is the default: an agent with no `adapter:`
  claudeCodeAdapter,
  jsonlAdapter,
];

let rows: readonly AgentAdapter[] = BUILT_IN;

/** Every registered adapter, the default first. A new array after each registration. */
export const adapterRows = (): readonly AgentAdapter[] => rows;

/** Adds an adapter (a plug-in, or a test's fake); an id already taken is refused. */
export function registerAdapter(a: AgentAdapter): void {
  if (rows.some((r) => r.id === a.id)) throw new Error(`an adapter named "${a.id}" is already registered`);
  rows = [...rows, a];
}

/** The adapter that drives an agent, bound to its options; an unknown id is the default's. */
export const adapterFor = (agent: AgentDef): AgentAdapter => {
  const row = rows.find((r) => r.id === (agent.adapter ?? rows[0]!.id)) ?? rows[0]!;
  return row.forAgent ? row.forAgent(agent) : row;
};

export * from './types.js';
