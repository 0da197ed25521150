import { basename } from 'node:path';
import type { WorkspaceState } from '../../types.js';
import type { WorkspaceConfig } from '../config/types.js';
import { readCheckpoint } from '../../checkpoint/io.js';
import { scanArtifactsSliced } from '../../scan/scan.js';
import { FactsCache, factsSignature, type CacheUse } from '../../scan/cached-facts.js';
import { DirListings } from '../../scan/dir-listings.js';
import { collectUnits, unitPatternWarnings } from '../../scan/units.js';
import { batchesOf, deriveState } from '../../state/derive.js';
import { readLevel2, todoViewFrom } from '../../sources/level2.js';
import type { PresetHas, PresetSource, Sources } from './types.js';

// The marker layout (docs/domain.md, The reference pipeline; Three sources of progress): one file per unit and step with its
// completion marker, checkpoint.md as level 1, the SQL todo table as level 2, the scan as
// level 3. The book preset reads its workspaces this way, and so does any pipeline a preset
// file defines: only the steps differ.

async function read(root: string, cfg: WorkspaceConfig, has: PresetHas, cacheUse?: CacheUse): Promise<Sources> {
  const checkpoint = has.checkpoint ? await readCheckpoint(root, cfg.pipeline, cfg.sources.checkpoint) : null;
  const batches = batchesOf(cfg.pipeline, checkpoint);
  const dirs = new DirListings(root);
  const units = collectUnits(
    root,
    cfg.pipeline,
    (checkpoint?.batches ?? []).flatMap((b) => b.rows.map((r) => r.unit)),
    batches.flatMap((b) => b.units),
    dirs,
  );
  // One thread on purpose: reading on a second core saved ~12% at 50k files and cost ~50 MB
  // of worker heaps (measured with `npm run bench`), and the control room lives in 200 MB.
  // The facts cache: one lstat per unchanged artifact instead of a read.
  const cache = cacheUse ? FactsCache.open(root, factsSignature(root, cfg.pipeline), cacheUse) : undefined;
  const scan = await scanArtifactsSliced(root, cfg.pipeline, units, cache, dirs);
  await cache?.save();
  // Read only after the scan: the status cache (src/cli/status-cache.ts) reuses an answer for exactly these facts.
  scan.factsId = cache?.unchangedId() ?? null;
  return { root, config: cfg, checkpoint, units, scan, todos: has.todos ? readLevel2(root, cfg) : null, warnings: unitPatternWarnings(root, cfg.pipeline, cfg.sources.checkpoint, units) };
}

/** What a marker layout derives its state from; the live model derives the same by delta (live-state.ts). */
export const deriveInputOf = (src: Sources, running: ReadonlySet<string>) => ({
  root: src.root,
  name: src.checkpoint?.project ?? basename(src.root),
  pipeline: src.config.pipeline,
  units: src.units,
  scan: src.scan,
  checkpoint: src.checkpoint,
  running,
  cuts: src.cuts,
  warnings: src.warnings,
  rebuildMemory: true,
});

function derive(src: Sources, running: ReadonlySet<string>): WorkspaceState {
  const state = deriveState(deriveInputOf(src, running));
  return src.todos ? { ...state, todos: todoViewFrom(src.todos, src.config, state.cells) } : state;
}

export const MARKER_LAYOUT: PresetSource = {
  read,
  derive,
  // The steps' directories, checkpoint.md's and the todo database's are watched by the live
  // workspace itself, and each event re-reads the one file it names.
  watchDirs: () => [],
  owns: () => false,
  incremental: true,
};

/** A marker-layout preset has all three recovery sources and the letter. */
export const MARKER_HAS = { checkpoint: true, resume: true, todos: true } as const;

export const MARKER_WORDS = {
  unit: 'unit',
  title: 'checkpoint.md',
  record: 'checkpoint.md',
  proof: 'disk (decides)',
  noCheckpoint: 'this pipeline has no checkpoint.md to write',
} as const;
