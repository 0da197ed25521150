import { utimesSync } from 'node:fs';
import { join } from 'node:path';
import { loadWorkspace } from '../../src/workspace.js';
import { statusJson } from '../../src/cli/json.js';
import { statusCommand } from '../../src/cli/commands/core-commands.js';
import { FACTS_CACHE_FILE } from '../../src/scan/cached-facts.js';
import { COLS, factsAt, FactsCacheWriter, type FactsCacheData, type StatKey } from '../../src/scan/facts-cache.js';
import type { FileFacts } from '../../src/types.js';
import { doneFile, pathOf, prose, tempDir, writeFiles } from './workspace.js';

// Workspaces and comparisons for the facts cache tests (issue 10 item 1).

export const UNITS = ['ch01', 'ch02', 'ch03'];

export function cacheWorkspace(): string {
  const root = tempDir('checkroom-cache-');
  const files: Record<string, string> = {};
  for (const u of UNITS) for (const s of ['research', 'draft']) Object.assign(files, Object.fromEntries([doneFile(u, s)]));
  files[pathOf('ch03', 'r1')] = `# R1\n\n${prose(300)}\n\nThe example on line 12 does not compile because the`;
  writeFiles(root, files);
  return root;
}

/** The cache was written long after every file last changed: its entries are settled. */
export const settle = (root: string): void => {
  const later = new Date(Date.now() + 3600_000);
  utimesSync(join(root, FACTS_CACHE_FILE), later, later);
};

/** The status JSON without its timing field: what cached and cold reads must agree on. */
export const statusOf = async (root: string, cached: boolean): Promise<string> => {
  const j = statusJson(await loadWorkspace(root, cached ? { cache: { write: true } } : {})) as Partial<ReturnType<typeof statusJson>>;
  delete j.scannedAt;
  return JSON.stringify(j);
};

/**
 * `checkroom status --json` as printed (through the facts and status caches when `cached`).
 * `clock: 'blank'` blanks its two clock readings, `scannedAt` and the forecast's minute
 * (`eta.at`); 'keep' leaves the text whole, for reads made at one clock reading.
 */
export const statusTextOf = async (root: string, cached: boolean, clock: 'blank' | 'keep' = 'blank'): Promise<string> => {
  const parts: string[] = [];
  await statusCommand([root], true, {} as never, { write: (s) => parts.push(s) }, cached ? { cache: { write: true } } : {});
  const text = parts.join('');
  return clock === 'keep' ? text : text.replace(/"scannedAt":"[^"]*"/, '"scannedAt":""').replace(/"eta":\{"at":"[^"]*"/, '"eta":{"at":""');
};

/** `data` with the entry of `rel` given another stat key and/or other facts (a planted lie, a racy rewrite). */
export function replaceEntry(data: FactsCacheData, rel: string, change: { key?: StatKey; facts?: Partial<FileFacts> }): FactsCacheData {
  const w = new FactsCacheWriter();
  data.paths.forEach((p, i) => {
    if (p !== rel) return w.copy(data, i);
    const n = data.nums.subarray(i * COLS, i * COLS + 5);
    const key = change.key ?? { dev: n[0], ino: n[1], size: n[2], mtimeMs: n[3], ctimeMs: n[4] };
    w.add(rel, key, { ...factsAt(data, i), ...change.facts });
  });
  return w.data(data.sig, data.startedMs, data.writtenMs);
}
