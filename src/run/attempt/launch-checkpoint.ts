import { basename, join } from 'node:path';
import { formatBytes, readTextCapped } from '../../fs/read-capped.js';
import { CHECKPOINT_MAX_BYTES } from '../../checkpoint/io.js';
import type { WorkspaceConfig } from '../../pipeline/config/types.js';
import type { Claim } from '../../types.js';
import { cellKey } from '../../types.js';
import { updateCheckpointCell, touchLastUpdate } from '../../checkpoint/update-cell.js';
import { parseCheckpoint } from '../../checkpoint/parse.js';
import { claimsOf } from '../../state/derive.js';
import { writeFileAtomic } from '../../fs/atomic-write.js';
import { rewriteCheckpoint } from '../../checkpoint/rewrite.js';
import { formatMinute } from '../../text/local-time.js';
import { insertCheckpointRow } from '../../checkpoint/insert-row.js';
import { CLAIM_OF } from '../../checkpoint/from-state.js';
import { readSources, stateOf } from '../../workspace.js';

// docs/domain.md, Three sources of progress: checkpoint.md is updated "after every step (one cell)", and at once
// when an agent starts (⏳) so a reader of the file sees the run. One cell is edited in
// place. A unit with no row (first seen on disk) gets one row added in place, its cells as the
// disk proves them, in its batch or in no batch (insert-row.ts), so the user's notes survive;
// when even that is impossible (no file, no column, too large) the whole file is rebuilt from
// the disk (the old one is backed up by rewriteCheckpoint) and the cell is set on that text.


/** The file's text; null when there is none; `too_large` past the checkpoint cap. */
const readText = async (path: string): Promise<string | null | { tooLarge: string }> => {
  try {
    const r = await readTextCapped(path, CHECKPOINT_MAX_BYTES);
    return r.ok ? r.text : { tooLarge: `${basename(path)} is ${formatBytes(r.size)}, over the ${formatBytes(r.cap)} cap` };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
};

/** The claim checkpoint.md holds for a cell now (null: no file, no row). */
export const readClaimOf = async (root: string, config: WorkspaceConfig, unit: string, step: string): Promise<Claim | null> => {
  const text = await readText(join(root, config.sources.checkpoint));
  if (text === null || typeof text !== 'string') return null;
  return claimsOf(parseCheckpoint(text, config.pipeline)).get(cellKey(unit, step)) ?? null;
};

export interface MarkResult {
  changed: boolean;
  /** Set when the one-cell edit was impossible and the file was rebuilt. */
  rebuilt: string | null;
}

/** `text` with a row added for `unit`, its claims and batch from the disk; null when impossible. */
const withRow = async (root: string, config: WorkspaceConfig, text: string, unit: string): Promise<string | null> => {
  const state = stateOf(await readSources(root, config));
  const claims = Object.fromEntries(state.cells.filter((c) => c.unit === unit).map((c) => [c.step, CLAIM_OF[c.status]]));
  const batch = state.batches.find((b) => b.units.includes(unit))?.id ?? null;
  const added = insertCheckpointRow(text, unit, batch, claims, config.pipeline);
  return added.changed ? added.text : null;
};

/** Set one cell of checkpoint.md and its "last updated" line. */
export const markCell = async (root: string, config: WorkspaceConfig, unit: string, step: string, claim: Claim, at: number): Promise<MarkResult> => {
  const path = join(root, config.sources.checkpoint);
  let rebuilt: string | null = null;
  const read = await readText(path);
  let text = typeof read === 'string' ? read : null;
  let edit = text === null ? null : updateCheckpointCell(text, unit, step, claim, config.pipeline);
  let added = false;
  if (text !== null && edit?.noRow) {
    const withIt = await withRow(root, config, text, unit);
    if (withIt !== null) [text, added, edit] = [withIt, true, updateCheckpointCell(withIt, unit, step, claim, config.pipeline)];
  }
  if (text === null || edit?.warning) {
    // An oversized file is not edited in place: it is rebuilt from the disk like a file
    // without the cell's row, and the old one is backed up (nothing lost).
    const why = read === null ? `no ${config.sources.checkpoint}` : typeof read === 'string' ? edit!.warning : read.tooLarge;
    rebuilt = `${why}: rebuilt ${config.sources.checkpoint} from the disk`;
    text = (await rewriteCheckpoint(root)).text;
    edit = updateCheckpointCell(text, unit, step, claim, config.pipeline);
    if (edit.warning) return { changed: false, rebuilt: `${rebuilt}; still ${edit.warning}` };
  }
  if (!edit!.changed && !added) return { changed: false, rebuilt };
  const touched = touchLastUpdate(edit!.text, formatMinute(new Date(at)));
  await writeFileAtomic(path, touched.text, [root]);
  return { changed: true, rebuilt };
};
