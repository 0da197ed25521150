import { basename, resolve } from 'node:path';
import { stat } from 'node:fs/promises';
import type { WorkspaceState, Warning } from './types.js';
import type { WorkspaceConfig } from './pipeline/config-types.js';
import type { CheckpointDoc } from './checkpoint/types.js';
import { CONFIG_FILE, loadConfig } from './pipeline/config-load.js';
import { readCheckpoint } from './checkpoint/io.js';
import { scanArtifacts, type ScanResult } from './scan/scan.js';
import { FactsCache, factsSignature } from './scan/cached-facts.js';
import { collectUnits, unitPatternWarnings } from './scan/units.js';
import { batchesOf, deriveState } from './state/derive.js';
import { readLevel2, todoViewFrom } from './sources/level2.js';
import type { TodoSnapshot } from './sources/todos.js';
import { scanGateWorkspace } from './gates/scan.js';
import { gateWorkspaceState } from './gates/state.js';
import type { GateWorkspace } from './gates/types.js';

// The engine's front door: everything the CLI, the control room and the launcher know
// about a workspace comes from here, from disk alone.

export class WorkspaceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WorkspaceError';
  }
}

export interface Sources {
  root: string;
  config: WorkspaceConfig;
  checkpoint: CheckpointDoc | null;
  units: string[];
  scan: ScanResult;
  /** Level 2: the SQL todo table, read once per change of the database file. */
  todos: TodoSnapshot | null;
  warnings: Warning[];
  /** `preset: gates`: the gate-file workflows (DOMAIN.md section 7); they are the state, not the scan. */
  gates?: GateWorkspace;
}

export async function assertWorkspace(dir: string): Promise<string> {
  const root = resolve(dir);
  let st;
  try {
    st = await stat(root);
  } catch {
    throw new WorkspaceError(`${dir}: no such directory; pass the path of a pipeline workspace`);
  }
  if (!st.isDirectory()) throw new WorkspaceError(`${dir}: not a directory; pass the path of a pipeline workspace`);
  return root;
}

/** How a read uses `.checkroom/facts-cache` (issue 10 item 1); without it, every artifact is read. */
export interface CacheUse {
  /** Whether this caller may write the cache back (a plain `status`; never --readonly). */
  write: boolean;
}

export async function readSources(dir: string, config?: WorkspaceConfig, cacheUse?: CacheUse): Promise<Sources> {
  const root = await assertWorkspace(dir);
  const cfg = config ?? (await loadConfig(root));
  if (cfg.preset === 'gates') {
    // Steps are not known in advance: they come from the plans and gate files.
    const gates = await scanGateWorkspace(root);
    const scan = scanArtifacts(root, cfg.pipeline, []);
    // A preset the layout chose is said, so an operator who expected the book knows why (issue 8 item 6).
    const warnings = cfg.presetDetected ? [{ source: CONFIG_FILE, message: cfg.presetDetected }] : [];
    return { root, config: cfg, checkpoint: null, units: gates.workflows.map((w) => w.id), scan, todos: null, warnings, gates };
  }
  const checkpoint = await readCheckpoint(root, cfg.pipeline, cfg.sources.checkpoint);
  const batches = batchesOf(cfg.pipeline, checkpoint);
  const units = collectUnits(
    root,
    cfg.pipeline,
    (checkpoint?.batches ?? []).flatMap((b) => b.rows.map((r) => r.unit)),
    batches.flatMap((b) => b.units),
  );
  // One thread on purpose: reading on a second core saved ~12% at 50k files and cost ~50 MB
  // of worker heaps (measured with `npm run bench`), and the control room lives in 200 MB.
  const cache = cacheUse ? FactsCache.open(root, factsSignature(root, cfg.pipeline), cacheUse) : undefined;
  const scan = scanArtifacts(root, cfg.pipeline, units, cache);
  await cache?.save();
  return { root, config: cfg, checkpoint, units, scan, todos: readLevel2(root, cfg), warnings: unitPatternWarnings(root, cfg.pipeline, cfg.sources.checkpoint, units) };
}

export function stateOf(src: Sources, running: ReadonlySet<string> = new Set()): WorkspaceState {
  if (src.gates) return gateWorkspaceState(src.root, src.gates, { pipeline: src.config.pipeline, running, warnings: src.warnings });
  const state = deriveState({
    root: src.root,
    name: src.checkpoint?.project ?? basename(src.root),
    pipeline: src.config.pipeline,
    units: src.units,
    scan: src.scan,
    checkpoint: src.checkpoint,
    running,
    warnings: src.warnings,
    rebuildMemory: true,
  });
  return src.todos ? { ...state, todos: todoViewFrom(src.todos, src.config, state.cells) } : state;
}

export async function loadWorkspace(dir: string, opts: { config?: WorkspaceConfig; running?: ReadonlySet<string>; cache?: CacheUse } = {}): Promise<WorkspaceState> {
  return stateOf(await readSources(dir, opts.config, opts.cache), opts.running);
}
