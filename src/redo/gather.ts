import { lstat } from 'node:fs/promises';
import type { Ledger } from '../run/journal/ledger.js';
import { checkLive, DEFAULT_QUIET_WINDOW_MS } from '../holders/liveness.js';
import { liveWhy } from '../holders/words.js';
import { inside } from '../backups/fs.js';
import { cellKey, type PipelineDef, type WorkspaceState } from '../types.js';
import { redoClosure } from './closure.js';
import { previewRedo } from './preview.js';
import type { RedoOverride, RedoPreview } from './types.js';

// The facts a redo is decided on, read once: each output's size (lstat: a regular file only),
// whether a process writes it now (the one liveness check, src/holders/), and the runs the
// journal has in flight. Then previewRedo decides.

/** Path → size, for the regular files among `paths` (a symlink or FIFO is not backed up). */
export async function sizesOf(root: string, paths: readonly string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const p of new Set(paths)) {
    const st = await lstat(inside(root, p)).catch(() => null);
    if (st?.isFile()) out.set(p, st.size);
  }
  return out;
}

/** Path → the sentence saying who writes it, for the files being written now. */
export function liveOf(root: string, pipeline: Pick<PipelineDef, 'quietWindowMs'>, paths: readonly string[]): Map<string, string> {
  const quietMs = pipeline.quietWindowMs ?? DEFAULT_QUIET_WINDOW_MS;
  const out = new Map<string, string>();
  for (const l of checkLive(root, paths, { quietMs }).values()) if (l.live) out.set(l.path, liveWhy(l));
  return out;
}

/** cellKey → "run <id>, pid <n>", for the runs the journal has in flight. */
export const runningOf = (ledger: Pick<Ledger, 'liveRuns'>): Map<string, string> =>
  new Map(ledger.liveRuns.map((r) => [cellKey(r.unit, r.step), `run ${r.runId}${r.pid ? `, pid ${r.pid}` : ''}`]));

export async function gatherRedo(
  ws: WorkspaceState,
  ledger: Pick<Ledger, 'liveRuns'>,
  origin: { unit: string; step: string },
  override: RedoOverride | null,
): Promise<RedoPreview> {
  const paths = redoClosure(ws.pipeline, ws.units, ws.cells, origin).map((c) => c.path);
  const sizes = await sizesOf(ws.root, paths);
  const live = liveOf(ws.root, ws.pipeline, [...sizes.keys()]);
  return previewRedo({ pipeline: ws.pipeline, units: ws.units, cells: ws.cells, origin, override, sizes, live, running: runningOf(ledger) });
}
