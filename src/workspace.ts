import { resolve } from 'node:path';
import { stat } from 'node:fs/promises';
import type { WorkspaceState } from './types.js';
import type { WorkspaceConfig } from './pipeline/config/types.js';
import { CONFIG_FILE, loadConfig } from './pipeline/config/load.js';
import { presetOf, type Sources } from './pipeline/presets/index.js';
import type { CacheUse } from './scan/cached-facts.js';
import { readCuts, type CutMemo } from './triage/cut-read.js';

export type { Sources } from './pipeline/presets/index.js';
export type { CacheUse } from './scan/cached-facts.js';

// The engine's front door: everything the CLI, the control room and the launcher know
// about a workspace comes from here, from disk alone. How a workspace is read and its state
// derived is its preset's (src/pipeline/presets/).

export class WorkspaceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WorkspaceError';
  }
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

/**
 * `cacheUse`: read through `.checkroom/facts-cache` and `cut-cache`; without
 * it, every artifact is read. `cutMemo`: a reader that stays keeps the journal's fold itself.
 */
export async function readSources(dir: string, config?: WorkspaceConfig, cacheUse?: CacheUse, cutMemo?: CutMemo): Promise<Sources> {
  const root = await assertWorkspace(dir);
  const cfg = config ?? (await loadConfig(root, cacheUse));
  const preset = presetOf(cfg.preset);
  // The journal is evidence: how each cell's last writer ended.
  const src = { ...(await preset.source.read(root, cfg, preset.has, cacheUse)), cuts: await readCuts(root, { read: !!cacheUse, write: cacheUse?.write ?? false, memo: cutMemo }) };
  // A preset the layout chose is said, so an operator who expected the book knows why.
  return cfg.presetDetected ? { ...src, warnings: [{ source: CONFIG_FILE, message: cfg.presetDetected }, ...src.warnings] } : src;
}

export function stateOf(src: Sources, running: ReadonlySet<string> = new Set()): WorkspaceState {
  return { ...presetOf(src.config.preset).source.derive(src, running), preset: src.config.preset };
}

export async function loadWorkspace(dir: string, opts: { config?: WorkspaceConfig; running?: ReadonlySet<string>; cache?: CacheUse } = {}): Promise<WorkspaceState> {
  return stateOf(await readSources(dir, opts.config, opts.cache), opts.running);
}
