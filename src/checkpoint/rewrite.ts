import { join } from 'node:path';
import { existsSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { readSources, stateOf, type Sources } from '../workspace.js';
import { claimsOf } from '../state/derive.js';
import { copyBackup } from '../backups/backups.js';
import { cellKey } from '../types.js';
import { checkpointFromState, stateClaims } from './from-state.js';
import { workspaceLang } from './lang.js';
import { renderCheckpoint } from './render.js';
import { reviseCheckpoint } from './revise.js';
import { parseCheckpoint } from './parse.js';
import { CHECKPOINT_MAX_BYTES, writeCheckpoint } from './io.js';

// The checkpoint rebuilt from the disk: `checkroom checkpoint --write`, recovery, a finished
// launch and the triage undo all write it this one way (domain code lives
// below the command line, not in src/cli/). An old file is edited in place (revise.ts): only the spans checkroom owns change, the operator's text stays byte for byte.

/** The old file's text when it can be edited in place; null when it is missing, over the cap, binary or not UTF-8 (then it is rebuilt whole, after its backup). */
export async function readOldCheckpoint(root: string, file: string): Promise<string | null> {
  try {
    const fh = await open(join(root, file), 'r');
    try {
      const st = await fh.stat();
      if (!st.isFile() || st.size > CHECKPOINT_MAX_BYTES) return null;
      const bytes = await fh.readFile();
      if (bytes.length > CHECKPOINT_MAX_BYTES || bytes.includes(0)) return null;
      const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
      return text;
    } finally {
      await fh.close();
    }
  } catch {
    return null;
  }
}

export interface PlannedCheckpoint {
  /** The file as it is (null: none, or not editable in place). */
  old: string | null;
  /** The file as the rewrite writes it. */
  text: string;
}

/** What a rewrite writes, computed without writing: the preview and the write share it. */
export async function planCheckpoint(src: Sources, now?: Date): Promise<PlannedCheckpoint> {
  const state = stateOf(src);
  const doc = checkpointFromState(state, src.checkpoint, now, await workspaceLang(src.root, state, src.checkpoint?.lang ?? null));
  const old = await readOldCheckpoint(src.root, src.config.sources.checkpoint);
  if (old === null) return { old, text: renderCheckpoint(doc, src.config.pipeline) };
  const claims = stateClaims(state);
  return { old, text: reviseCheckpoint(old, doc, src.config.pipeline, (unit, step) => claims.get(cellKey(unit, step))) };
}

/** Rewrite checkpoint.md from the reconciled state; the old file is backed up first. A caller
 *  that has just read the workspace passes what it read instead of a second full scan. */
export async function rewriteCheckpoint(
  dir: string,
  now?: Date,
  read?: Sources,
): Promise<{ path: string; backup: string | null; changed: number; text: string }> {
  const src = read ?? (await readSources(dir));
  const { text } = await planCheckpoint(src, now);
  const before = claimsOf(src.checkpoint);
  const after = claimsOf(parseCheckpoint(text, src.config.pipeline));
  let changed = 0;
  for (const [k, v] of after) if (before.get(k) !== v) changed++;
  const file = src.config.sources.checkpoint;
  const backup = existsSync(join(src.root, file)) ? (await copyBackup(src.root, file, now)).backup : null;
  await writeCheckpoint(src.root, text, file);
  return { path: file, backup, changed, text };
}
