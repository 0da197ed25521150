import { openSync, readSync, fstatSync, closeSync, readdirSync } from 'node:fs';
import { join, posix } from 'node:path';
import type { FileFacts, PipelineDef, StepDef } from '../types.js';
import { readFileFacts } from './file-facts.js';
import { unitPath } from './units.js';

// The filesystem scan (recovery level 3): facts for every expected artifact, the global
// evidence files of phases 1–2, and the long-memory entries. Pure data out; the
// reconciliation decides what it means.

export interface ScanResult {
  /** Relative path → facts, for every expected per-unit artifact. */
  files: Map<string, FileFacts>;
  /** Global evidence (phase artifacts) → exists and non-empty. */
  artifacts: Map<string, boolean>;
  /** Shared long-memory files (entry steps) → unit ids with an entry. */
  entries: Map<string, Set<string>>;
  /** Per shared long-memory file: facts of the file itself. */
  entryFiles: Map<string, FileFacts>;
  scannedAt: number;
}

const ENTRY_LIMIT = 4 * 1024 * 1024;

/** Headings that name a unit (`## ch03 — title`) are its long-memory entries. */
export function readEntries(root: string, rel: string, pattern: string): { facts: FileFacts; units: Set<string> } {
  const facts = readFileFacts(join(root, rel), rel, null);
  const units = new Set<string>();
  if (!facts.exists || facts.error) return { facts, units };
  let text = facts.tail;
  if (facts.bytes > facts.tail.length) {
    // Entries can be anywhere in the file: read it whole, bounded.
    const fd = openSync(join(root, rel), 'r');
    try {
      const size = Math.min(fstatSync(fd).size, ENTRY_LIMIT);
      const buf = Buffer.allocUnsafe(size);
      text = buf.subarray(0, readSync(fd, buf, 0, size, 0)).toString('utf8');
    } finally {
      closeSync(fd);
    }
  }
  const re = new RegExp(`^#{1,6}\\s.*?\\b(${pattern})\\b`, 'gm');
  for (const m of text.matchAll(re)) units.add(m[1]);
  return { facts, units };
}

export function scanStep(root: string, step: StepDef, unit: string): FileFacts {
  const rel = unitPath(step, unit);
  return readFileFacts(join(root, rel), rel, step.marker);
}

const missing = (path: string): FileFacts => ({ path, exists: false, bytes: 0, chars: 0, marker: false, markerNotLast: false, mtimeMs: 0, tail: '', fenceOpen: false });

/** Names in a directory, or null when it cannot be listed (then we open files one by one). */
function listing(root: string, dir: string, cache: Map<string, Set<string> | null>): Set<string> | null {
  if (cache.has(dir)) return cache.get(dir)!;
  let names: Set<string> | null;
  try {
    names = new Set(readdirSync(join(root, dir)));
  } catch (err) {
    names = (err as NodeJS.ErrnoException).code === 'ENOENT' ? new Set() : null;
  }
  cache.set(dir, names);
  return names;
}

/** Facts for every expected per-unit artifact. */
export function scanFiles(root: string, pipeline: PipelineDef, units: readonly string[]): Map<string, FileFacts> {
  const files = new Map<string, FileFacts>();
  // One readdir per directory instead of a failed open per missing file: most cells of a
  // young pipeline have no file yet, and each ENOENT costs an exception.
  const dirs = new Map<string, Set<string> | null>();
  for (const step of pipeline.steps) {
    if (step.kind !== 'file') continue;
    for (const unit of units) {
      const rel = unitPath(step, unit);
      const names = listing(root, posix.dirname(rel), dirs);
      const facts = names && !names.has(posix.basename(rel)) ? missing(rel) : readFileFacts(join(root, rel), rel, step.marker);
      files.set(rel, facts);
    }
  }
  return files;
}

/** Long-memory entries and the global evidence files of phases 1–2. */
export function scanGlobals(root: string, pipeline: PipelineDef): Pick<ScanResult, 'artifacts' | 'entries' | 'entryFiles'> {
  const entries = new Map<string, Set<string>>();
  const entryFiles = new Map<string, FileFacts>();
  for (const step of pipeline.steps) {
    if (step.kind !== 'entry' || entries.has(step.path)) continue;
    const { facts, units: found } = readEntries(root, step.path, pipeline.units.pattern);
    entries.set(step.path, found);
    entryFiles.set(step.path, facts);
  }
  const artifacts = new Map<string, boolean>();
  for (const phase of pipeline.phases) {
    for (const rel of phase.artifacts) {
      const f = readFileFacts(join(root, rel), rel, null);
      artifacts.set(rel, f.exists && f.bytes > 0 && !f.error);
    }
  }
  return { artifacts, entries, entryFiles };
}

export function scanArtifacts(root: string, pipeline: PipelineDef, units: readonly string[]): ScanResult {
  return { files: scanFiles(root, pipeline, units), ...scanGlobals(root, pipeline), scannedAt: Date.now() };
}
