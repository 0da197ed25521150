import { readSources, stateOf } from '../workspace.js';
import { checkpointFromState } from '../checkpoint/from-state.js';
import { renderCheckpoint } from '../checkpoint/render.js';
import { parseCheckpoint } from '../checkpoint/parse.js';
import { claimsOf } from '../state/derive.js';
import type { Claim } from '../types.js';

// What rewriting checkpoint.md would change, computed before anything is written, with
// the same steps as rewriteCheckpoint (src/checkpoint/rewrite.ts) so the confirmation
// lists exactly the cells whose claim the new file changes.

export interface ClaimChange {
  key: string;
  before: Claim | null;
  after: Claim;
}

export interface CheckpointDiff {
  file: string;
  exists: boolean;
  changes: ClaimChange[];
}

export async function checkpointDiff(dir: string): Promise<CheckpointDiff> {
  const src = await readSources(dir);
  const text = renderCheckpoint(checkpointFromState(stateOf(src), src.checkpoint), src.config.pipeline);
  const before = claimsOf(src.checkpoint);
  const after = claimsOf(parseCheckpoint(text, src.config.pipeline));
  const changes: ClaimChange[] = [];
  for (const [key, claim] of after) if (before.get(key) !== claim) changes.push({ key, before: before.get(key) ?? null, after: claim });
  return { file: src.config.sources.checkpoint, exists: src.checkpoint !== null, changes };
}
