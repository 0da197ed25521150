import { accessSync, constants, existsSync, statSync } from 'node:fs';
import type { PipelineDef } from '../../types.js';
import { readFileFacts } from '../../scan/file-facts.js';
import { confineOf, readEntries } from '../../scan/scan.js';
import type { CellTarget } from './launch-spec.js';

// Only the marker proves success (docs/domain.md, The reference pipeline): exit 0 is a claim, the last line of
// the output file is the proof. `entry` steps (long memory) have no marker; their proof is
// the unit's entry in the shared file, exactly as the scan reads it.

export const provenDone = (root: string, pipeline: PipelineDef, t: CellTarget, unit: string): boolean => {
  const confine = confineOf(root, pipeline);
  if (t.step.kind === 'entry') return readEntries(root, t.outputRel, pipeline.units.pattern, confine).units.has(unit);
  return readFileFacts(t.outputAbs, t.outputRel, t.step.marker, { confine }).marker;
};

/** A per-unit output file is there (a half-product unless proven): back it up before a relaunch.
 *  Shared long-memory files are never moved aside: other units' entries live in them. */
export const hasOwnOutput = (t: CellTarget): boolean => t.step.kind === 'file' && existsSync(t.outputAbs);

/**
 * Why the cell's output cannot be launched over, or null: something is under its name that
 * checkroom cannot read (permissions) or that is not a regular file (a directory, a FIFO).
 * It could not be backed up, and moving it aside would hide a problem a human must fix.
 */
export function outputBlocked(t: CellTarget): string | null {
  if (t.step.kind !== 'file') return null;
  try {
    if (!statSync(t.outputAbs).isFile()) return `${t.outputRel} is not a regular file; replace or remove it first`;
    accessSync(t.outputAbs, constants.R_OK);
    return null;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    return code === 'EACCES' || code === 'EPERM'
      ? `${t.outputRel} cannot be read (permission denied), so it cannot be backed up; fix its permissions first`
      : `${t.outputRel} cannot be read (${code ?? String(err)}); fix it first`;
  }
}
