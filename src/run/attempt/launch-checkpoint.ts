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

/** One cell's claim to set. */
export interface CellMark {
  unit: string;
  step: string;
  claim: Claim;
}

type Applied = { text: string; changed: boolean } | { warning: string };

/** The marks set on `text` in order (a unit with no row gets one from the disk); a warning when one cannot be set in place. */
async function applyMarks(root: string, config: WorkspaceConfig, text: string, marks: readonly CellMark[]): Promise<Applied> {
  let changed = false;
  for (const m of marks) {
    let edit = updateCheckpointCell(text, m.unit, m.step, m.claim, config.pipeline);
    if (edit.noRow) {
      const withIt = await withRow(root, config, text, m.unit);
      if (withIt !== null) [changed, edit] = [true, updateCheckpointCell(withIt, m.unit, m.step, m.claim, config.pipeline)];
    }
    if (edit.warning) return { warning: edit.warning };
    [text, changed] = [edit.text, changed || edit.changed];
  }
  return { text, changed };
}

/**
 * Set cells of checkpoint.md and its "last updated" line: one read and one atomic write for
 * every mark given (the marker hands over every mark that queued while the last write ran:
 * an array's cells starting together are one write, not one each).
 */
export const markCells = async (root: string, config: WorkspaceConfig, marks: readonly CellMark[], at: number): Promise<MarkResult> => {
  const path = join(root, config.sources.checkpoint);
  let rebuilt: string | null = null;
  const read = await readText(path);
  let applied: Applied | null = typeof read === 'string' ? await applyMarks(root, config, read, marks) : null;
  if (applied === null || 'warning' in applied) {
    // No file, an oversized one, or a cell that cannot be set in place: rebuilt from the disk
    // once (the old file is backed up: nothing lost), then every mark set on the rebuilt text.
    const why = read === null ? `no ${config.sources.checkpoint}` : typeof read === 'string' ? (applied as { warning: string }).warning : read.tooLarge;
    rebuilt = `${why}: rebuilt ${config.sources.checkpoint} from the disk`;
    applied = await applyMarks(root, config, (await rewriteCheckpoint(root)).text, marks);
    if ('warning' in applied) return { changed: false, rebuilt: `${rebuilt}; still ${applied.warning}` };
  }
  if (!applied.changed) return { changed: false, rebuilt };
  const touched = touchLastUpdate(applied.text, formatMinute(new Date(at)));
  await writeFileAtomic(path, touched.text, [root]);
  return { changed: true, rebuilt };
};

/** Set one cell of checkpoint.md and its "last updated" line. */
export const markCell = (root: string, config: WorkspaceConfig, unit: string, step: string, claim: Claim, at: number): Promise<MarkResult> =>
  markCells(root, config, [{ unit, step, claim }], at);
