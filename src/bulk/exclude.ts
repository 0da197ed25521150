// Which cells a set action never touches (docs/redrive.md, Never redone): one decision, asked
// by the preview, by the relaunch at the moment it launches, and by any set action (a filter's
// or a marked set's). A cell with its marker is done: its proof is on disk, and no bulk action
// redoes it; a running cell or a file being written belongs to its writer.

export interface CellNow {
  /** Its output ends with its marker (scan/file-facts.ts, launch-proof.ts). */
  marker: boolean;
  /** In flight: running, or waiting for its next attempt. */
  running: boolean;
  /** Why its output is being written (holders/), or null. */
  writtenBy: string | null;
}

/** Why the cell is left out of a set action, or null when it may be acted on. */
export function exclusionOf(c: CellNow): string | null {
  if (c.marker) return 'has its marker: never redone';
  if (c.running) return 'running now';
  if (c.writtenBy) return `being written: ${c.writtenBy}`;
  return null;
}
