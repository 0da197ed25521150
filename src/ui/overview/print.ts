import type { WorkspaceEntry } from '../../many/entries.js';
import { readStatus, type ReadOptions } from '../../many/read-status.js';
import { hostOf, nextState, sortRows, type OverviewRow } from '../../many/rows.js';
import { headerLine, selectedNote, titleLine } from './lines.js';
import { fit } from '../../text/layout.js';
import { overviewRowText } from './lines.js';

// The overview when stdout is not a terminal (a pipe, a script, TERM=dumb): every workspace
// read once, printed most urgent first, each row followed by its note (alarms, why unreachable).

export async function overviewText(entries: readonly WorkspaceEntry[], o: ReadOptions, width: number, now: () => number = Date.now): Promise<string> {
  const rows: OverviewRow[] = await Promise.all(
    entries.map(async (entry) => ({ entry, host: hostOf(entry), state: nextState({ kind: 'loading' }, await readStatus(entry, o), now()) })),
  );
  const at = now();
  const lines = [titleLine(rows), headerLine(width)];
  for (const r of sortRows(rows)) lines.push(overviewRowText(r, width, at), `  ${selectedNote(r).replace(/ · enter: .*$/, '')}`);
  return lines.map((l) => fit(l, width)).join('\n') + '\n';
}
