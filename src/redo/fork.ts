import { readFileSync } from 'node:fs';
import type { CellTarget } from '../run/attempt/launch-spec.js';
import type { WorkspaceConfig } from '../pipeline/config/types.js';
import type { CellOverride } from '../run/journal/triage-ledger.js';
import { inside } from '../backups/fs.js';

// Fork from here (docs/redo.md): a redo may carry another agent or prompt for its cells. The
// launcher asks this one function for every launch, whatever asked for it (a key, autopilot,
// `checkroom run`, the socket); the journal's launch event then drops the override, so it
// serves the cell's next run only. The prompt file reaches every agent as CHECKROOM_PROMPT (its
// absolute path); an agent with a prompt template (claude-code) gets the file's text instead.

/** A prompt file larger than this is refused: a prompt is not a book. */
export const MAX_PROMPT_BYTES = 256 * 1024;

export function forkTarget(root: string, config: WorkspaceConfig, t: CellTarget, o: CellOverride | undefined): CellTarget {
  if (!o) return t;
  let agent = t.agent;
  if (o.agent !== undefined) {
    const named = config.agents[o.agent];
    if (!named) throw new Error(`the redo asked for agent ${o.agent}, which checkroom.yaml no longer has; add it back, or undo the redo (u)`);
    agent = named;
  }
  if (o.prompt !== undefined) {
    const abs = inside(root, o.prompt);
    const text = readFileSync(abs);
    if (text.length > MAX_PROMPT_BYTES) throw new Error(`the redo's prompt ${o.prompt} is ${text.length} bytes, over ${MAX_PROMPT_BYTES}; shorten it, or undo the redo (u)`);
    agent = { ...agent, env: { ...agent.env, CHECKROOM_PROMPT: abs }, ...(agent.cli?.prompt ? { cli: { ...agent.cli, prompt: text.toString('utf8') } } : {}) };
  }
  return { ...t, agent };
}
