import { loadConfig } from '../pipeline/config/load.js';
import type { WorkspaceConfig } from '../pipeline/config/types.js';
import { readJournal } from '../run/journal/journal.js';
import { replayJournal } from '../run/journal/ledger-fold.js';
import { runRecordsOf } from '../history/run-records.js';
import { heldOutputs } from '../holders/held-outputs.js';
import { loadWorkspace } from '../workspace.js';
import { cellKey, type WorkspaceState } from '../types.js';
import { defaultName } from './apply.js';
import { parseRedrive, type RedriveRequest } from './filter.js';
import { previewOf, type BulkPreview } from './preview.js';
import { selectCells } from './select.js';

// The redrive's read of the disk (docs/redrive.md): the journal once — its runs through THE
// derivation (history/run-records.ts) and its ledger through the fold every surface uses —
// the scan, and who writes which output now (holders/). The room and `checkroom redrive`
// preview through this one function, so they select the same cells.

export interface RedriveRead {
  request: RedriveRequest;
  preview: BulkPreview;
}

export interface RedriveContext {
  /** The room's state and config, already read; the CLI reads them. */
  ws?: WorkspaceState;
  config?: WorkspaceConfig;
  /** Cells in flight in this process (the room's supervisor); the journal's live runs are added. */
  flying?: ReadonlySet<string>;
}

export async function readRedrive(root: string, text: string, now: number, c: RedriveContext = {}): Promise<RedriveRead> {
  const request = parseRedrive(text, now);
  const config = c.config ?? (await loadConfig(root));
  const { events } = await readJournal(root);
  const ledger = events.length ? replayJournal(events, now, { breaker: config.breaker, limits: config.limits }) : null;
  const flying = new Set(c.flying ?? []);
  for (const r of ledger?.liveRuns ?? []) flying.add(cellKey(r.unit, r.step));
  for (const cl of Object.values(ledger?.cells ?? {})) if (cl.state === 'retrying') flying.add(cl.key);
  const ws = c.ws ?? (await loadWorkspace(root, { config, running: flying }));
  // Only outputs that could be acted on are looked up in /proc: done cells are left out anyway.
  const paths = ws.cells.filter((cell) => cell.status !== 'done' && cell.exists).map((cell) => cell.path);
  const ours = new Set((ledger?.liveRuns ?? []).flatMap((r) => (r.pid ? [r.pid] : [])));
  const written = paths.length ? heldOutputs(root, paths, ours) : new Map<string, string>();
  const sel = selectCells(request.filter, { ws, ledger, runs: runRecordsOf(events), config, flying, written });
  const name = request.name ?? defaultName(request.action, now);
  return { request, preview: previewOf(sel, { action: request.action, name, filter: request.text }, ledger) };
}
