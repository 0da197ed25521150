import { readSources } from '../../workspace.js';
import { planCheckpoint } from '../../checkpoint/rewrite.js';
import { parseCheckpoint } from '../../checkpoint/parse.js';
import { unifiedDiff } from '../../checkpoint/line-diff.js';
import { claimsOf } from '../../state/derive.js';
import type { Claim } from '../../types.js';

// What rewriting checkpoint.md would change, computed before anything is written, with the
// same steps as rewriteCheckpoint (src/checkpoint/rewrite.ts planCheckpoint): the cells whose
// claim changes, and the whole line diff (a list of cells hid what else a
// rewrite touched).

export interface ClaimChange {
  key: string;
  before: Claim | null;
  after: Claim;
}

export interface CheckpointDiff {
  file: string;
  exists: boolean;
  changes: ClaimChange[];
  /** Unified diff of the file, old → new (hunks, ` `/`-`/`+` lines); at most DIFF_LINES, then a count of the rest. */
  lines: string[];
}

/** Past this many lines the dialog could not show them anyway; the count of the rest is said. */
export const DIFF_LINES = 400;

export const boundedDiff = (before: string, after: string, max = DIFF_LINES): string[] => {
  const all = unifiedDiff(before, after);
  return all.length <= max ? all : [...all.slice(0, max), `… ${all.length - max} more diff lines`];
};

export async function checkpointDiff(dir: string): Promise<CheckpointDiff> {
  const src = await readSources(dir);
  const { old, text } = await planCheckpoint(src);
  const before = claimsOf(src.checkpoint);
  const after = claimsOf(parseCheckpoint(text, src.config.pipeline));
  const changes: ClaimChange[] = [];
  for (const [key, claim] of after) if (before.get(key) !== claim) changes.push({ key, before: before.get(key) ?? null, after: claim });
  return { file: src.config.sources.checkpoint, exists: src.checkpoint !== null, changes, lines: boundedDiff(old ?? '', text) };
}
