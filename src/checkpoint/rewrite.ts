import { join } from 'node:path';
import { existsSync } from 'node:fs';
import { readSources, stateOf, type Sources } from '../workspace.js';
import { claimsOf } from '../state/derive.js';
import { copyBackup } from '../backups.js';
import { checkpointFromState } from './from-state.js';
import { workspaceLang } from './lang.js';
import { renderCheckpoint } from './render.js';
import { parseCheckpoint } from './parse.js';
import { writeCheckpoint } from './io.js';

// The checkpoint rebuilt from the disk: `checkroom checkpoint --write`, recovery, a finished
// launch and the triage undo all write it this one way (issue 9 item 4: domain code lives
// below the command line, not in src/cli/).

/** Rebuild checkpoint.md from the reconciled state; the old file is backed up first. A caller
 *  that has just read the workspace passes what it read instead of a second full scan. */
export async function rewriteCheckpoint(
  dir: string,
  now?: Date,
  read?: Sources,
): Promise<{ path: string; backup: string | null; changed: number; text: string }> {
  const src = read ?? (await readSources(dir));
  const state = stateOf(src);
  const doc = checkpointFromState(state, src.checkpoint, now, await workspaceLang(src.root, state, src.checkpoint?.lang ?? null));
  const text = renderCheckpoint(doc, src.config.pipeline);
  const before = claimsOf(src.checkpoint);
  const after = claimsOf(parseCheckpoint(text, src.config.pipeline));
  let changed = 0;
  for (const [k, v] of after) if (before.get(k) !== v) changed++;
  const file = src.config.sources.checkpoint;
  const backup = existsSync(join(src.root, file)) ? (await copyBackup(src.root, file, now)).backup : null;
  await writeCheckpoint(src.root, text, file);
  return { path: file, backup, changed, text };
}
