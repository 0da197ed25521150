import { lstat } from 'node:fs/promises';
import { posix } from 'node:path';
import type { WorkspaceConfig } from '../pipeline/config/types.js';
import { inside } from '../backups/fs.js';
import { RedoError, type RedoOverride } from './types.js';

// A fork's changed agent or prompt, checked before anything is shown (docs/redo.md, Fork from
// here): the agent must be one of checkroom.yaml's, the prompt a regular file inside the
// workspace (confined as every path is). A bad value is a clear error, never a silent default.

/** `agent=writer-b prompt=prompts/review-v2.md` words, and the cell if given (`ch03/draft` or `ch03 draft`). */
export function parseRedoArgs(args: string): { cell: { unit: string; step: string } | null; override: RedoOverride } {
  const words = args.split(/\s+/).filter(Boolean);
  const override: RedoOverride = {};
  const rest: string[] = [];
  for (const w of words) {
    const m = /^(agent|prompt)=(.*)$/.exec(w);
    if (!m) rest.push(w);
    else if (m[2] === '') throw new RedoError(`${m[1]}= needs a value: ${m[1] === 'agent' ? 'agent=writer-b' : 'prompt=prompts/review-v2.md'}`);
    else override[m[1] as 'agent' | 'prompt'] = m[2];
  }
  const cellWords = rest.length === 1 ? rest[0].split('/') : rest;
  if (cellWords.length === 0) return { cell: null, override };
  if (cellWords.length !== 2 || cellWords.some((x) => x === '')) throw new RedoError(`redo takes a cell as UNIT/STEP or UNIT STEP, then agent=NAME or prompt=PATH; got "${args.trim()}"`);
  return { cell: { unit: cellWords[0], step: cellWords[1] }, override };
}

export async function checkOverride(root: string, config: WorkspaceConfig, o: RedoOverride): Promise<RedoOverride | null> {
  if (o.agent === undefined && o.prompt === undefined) return null;
  if (o.agent !== undefined && !config.agents[o.agent]) {
    throw new RedoError(`no agent "${o.agent}" in checkroom.yaml; agents: ${Object.keys(config.agents).join(', ')}`);
  }
  if (o.prompt === undefined) return { agent: o.agent };
  const rel = posix.normalize(o.prompt.replace(/\\/g, '/')).replace(/^\.\//, '');
  let abs: string;
  try {
    abs = inside(root, rel);
  } catch {
    throw new RedoError(`prompt ${o.prompt} is outside the workspace; give a path inside ${root}`);
  }
  const st = await lstat(abs).catch(() => null);
  if (!st?.isFile()) throw new RedoError(`prompt ${rel} ${st ? 'is not a regular file' : 'does not exist'}; give a file inside the workspace`);
  return { ...(o.agent !== undefined ? { agent: o.agent } : {}), prompt: rel };
}
