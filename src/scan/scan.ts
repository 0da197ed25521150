import { readSync, fstatSync, closeSync } from 'node:fs';
import { join, posix } from 'node:path';
import type { FileFacts, PipelineDef, StepDef } from '../types.js';
import { readFileFacts } from './file-facts.js';
import { Confine } from './confine.js';
import { PARTIAL_CHARS } from '../triage/triage.js';
import { expandUnit, unitPath } from './units.js';
import type { FactsCache } from './cached-facts.js';
import { DirListings } from './dir-listings.js';
import { compilePattern } from '../pipeline/safe-pattern.js';

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
  /** The facts cache's identity when `files` are exactly its entries (cached-facts.ts unchangedId); absent or null otherwise. */
  factsId?: string | null;
}

const ENTRY_LIMIT = 4 * 1024 * 1024;

/** Headings that name a unit (`## ch03 — title`) are its long-memory entries. */
export function readEntries(root: string, rel: string, pattern: string, confine = new Confine(root)): { facts: FileFacts; units: Set<string> } {
  const facts = readFileFacts(join(root, rel), rel, null, { confine });
  const units = new Set<string>();
  if (!facts.exists || facts.error) return { facts, units };
  let text = facts.tail;
  if (facts.bytes > facts.tail.length) {
    // Entries can be anywhere in the file: read it whole, bounded, through the same
    // confinement (a link swapped in between the two opens is still refused).
    const fd = confine.open(join(root, rel));
    if (typeof fd !== 'number') return { facts: { ...facts, unreadable: true, error: fd.refused }, units };
    try {
      const size = Math.min(fstatSync(fd).size, ENTRY_LIMIT);
      const buf = Buffer.allocUnsafe(size);
      text = buf.subarray(0, readSync(fd, buf, 0, size, 0)).toString('utf8');
    } finally {
      closeSync(fd);
    }
  }
  // Workspace text against a config pattern: RE2, linear in the file.
  const re = compilePattern(`^#{1,6}\\s.*?\\b(${pattern})\\b`, 'm');
  for (const m of re.matchAll(text)) if (m.groups[1] !== undefined) units.add(m.groups[1]);
  return { facts, units };
}

/** Characters a verdict about this step's artifact needs: the triage threshold, or the marked body's minimum. */
export const needOf = (step: StepDef): number => Math.max(PARTIAL_CHARS, step.minChars + (step.marker ? step.marker.length + 9 : 0));

/** `confine` carries checkroom.yaml's outside_roots; one is made per scan so each directory is resolved once. */
export function scanStep(root: string, step: StepDef, unit: string, confine = new Confine(root)): FileFacts {
  const rel = unitPath(step, unit);
  return readFileFacts(join(root, rel), rel, step.marker, { confine, need: needOf(step) });
}

/** The confinement of one scan of `root`: the workspace plus checkroom.yaml's outside_roots. */
export const confineOf = (root: string, pipeline: PipelineDef): Confine => new Confine(root, pipeline.outsideRoots);

const missing = (path: string): FileFacts => ({ path, exists: false, bytes: 0, chars: 0, marker: false, markerNotLast: false, mtimeMs: 0, tail: '', fenceOpen: false });

/**
 * Per expected artifact, in scan order: its facts, an old cache entry's index (cached), or
 * the path of a missing one. Facts and cache entries carry their own path: at 50k files a
 * second array of the paths was garbage the collector copied for nothing.
 */
type Found = FileFacts | number | string;

/** Facts for every expected per-unit artifact; with `cache`, unchanged files are not read. */
export function scanFiles(root: string, pipeline: PipelineDef, units: readonly string[], cache?: FactsCache, dirs = new DirListings(root)): Map<string, FileFacts> {
  return filesOf(walkFiles(root, pipeline, units, cache, dirs), cache);
}

/** The map of a walk; cached entries are made into facts here. */
function filesOf(found: Found[], cache?: FactsCache): Map<string, FileFacts> {
  const files = new Map<string, FileFacts>();
  for (const f of found) {
    const facts = typeof f === 'string' ? missing(f) : typeof f === 'number' ? cache!.cached(f) : f;
    files.set(facts.path, facts);
  }
  return files;
}

/** Every expected per-unit artifact looked at once: read, taken from the cache, or missing. */
function walkFiles(root: string, pipeline: PipelineDef, units: readonly string[], cache: FactsCache | undefined, dirs: DirListings): Found[] {
  const found: Found[] = [];
  for (const _ of walk(root, pipeline, units, cache, dirs, found));
  return found;
}

/**
 * The same walk, giving the event loop a turn every SLICE_MS: at 50k files
 * the scan held it for seconds, and a control room told to stop (SIGTERM, SIGHUP, ctrl-c
 * before the room is up) could not hear it until the scan was over.
 */
async function walkFilesSliced(root: string, pipeline: PipelineDef, units: readonly string[], cache: FactsCache | undefined, dirs: DirListings): Promise<Found[]> {
  const found: Found[] = [];
  let since = performance.now();
  let n = 0;
  for (const _ of walk(root, pipeline, units, cache, dirs, found)) {
    if ((++n & 63) !== 0 || performance.now() - since < SLICE_MS) continue;
    await new Promise((r) => setImmediate(r));
    since = performance.now();
  }
  return found;
}

/** Work between two turns of the event loop: signals are heard well within a second. */
const SLICE_MS = 50;

/** The walk itself, one step per artifact looked at (pushed onto `found`). */
function* walk(root: string, pipeline: PipelineDef, units: readonly string[], cache: FactsCache | undefined, dirs: DirListings, found: Found[]): Generator<void> {
  // One readdir per directory instead of a failed open per missing file: most cells of a
  // young pipeline have no file yet, and each ENOENT costs an exception.
  const confine = confineOf(root, pipeline);
  for (const step of pipeline.steps) {
    if (step.kind !== 'file') continue;
    // What is the same for every unit is worked out once per step, not per file (at 50k files): the read's options, the directory when only the file name
    // holds {unit}, and the read itself (no closure per file).
    const opts = { confine, need: needOf(step) };
    const read = (abs: string, rel: string): FileFacts => readFileFacts(abs, rel, step.marker, opts);
    const dirOf = posix.dirname(step.path);
    const baseOf = posix.basename(step.path);
    const fixedDir = !dirOf.includes('{unit}');
    const dirAbs = join(root, dirOf);
    const dirSlash = dirAbs.endsWith('/') ? dirAbs : `${dirAbs}/`;
    for (const unit of units) {
      const rel = unitPath(step, unit);
      const same = fixedDir && !unit.includes('/');
      const base = same ? expandUnit(baseOf, unit) : posix.basename(rel);
      const names = dirs.set(same ? dirOf : posix.dirname(rel));
      if (names && !names.has(base)) {
        found.push(rel);
        continue;
      }
      // The directory joined once per step; only a name of dots would need normalizing.
      const abs = same && base !== '.' && base !== '..' ? dirSlash + base : join(root, rel);
      found.push(cache ? cache.factsOrEntry(rel, abs, confine, read) : read(abs, rel));
      yield;
    }
  }
}

/** Long-memory entries and the global evidence files of phases 1–2. */
export function scanGlobals(root: string, pipeline: PipelineDef): Pick<ScanResult, 'artifacts' | 'entries' | 'entryFiles'> {
  const entries = new Map<string, Set<string>>();
  const entryFiles = new Map<string, FileFacts>();
  const confine = confineOf(root, pipeline);
  for (const step of pipeline.steps) {
    if (step.kind !== 'entry' || entries.has(step.path)) continue;
    const { facts, units: found } = readEntries(root, step.path, pipeline.units.pattern, confine);
    entries.set(step.path, found);
    entryFiles.set(step.path, facts);
  }
  const artifacts = new Map<string, boolean>();
  for (const phase of pipeline.phases) {
    for (const rel of phase.artifacts) {
      const f = readFileFacts(join(root, rel), rel, null, { confine });
      artifacts.set(rel, f.exists && f.bytes > 0 && !f.error);
    }
  }
  return { artifacts, entries, entryFiles };
}

/**
 * `dirs`: the listings unit discovery already made (one readdir per directory per read).
 * With `cache`, `files` is made when first read: an answer the status cache gives never
 * reads it (src/cli/status-cache.ts), and its 50k fact objects are then never made.
 */
export function scanArtifacts(root: string, pipeline: PipelineDef, units: readonly string[], cache?: FactsCache, dirs = new DirListings(root)): ScanResult {
  return artifactsOf(root, pipeline, walkFiles(root, pipeline, units, cache, dirs), cache);
}

/** scanArtifacts, yielding to the event loop while it reads (for the async readers of a workspace). */
export async function scanArtifactsSliced(root: string, pipeline: PipelineDef, units: readonly string[], cache?: FactsCache, dirs = new DirListings(root)): Promise<ScanResult> {
  return artifactsOf(root, pipeline, await walkFilesSliced(root, pipeline, units, cache, dirs), cache);
}

function artifactsOf(root: string, pipeline: PipelineDef, found: Found[], cache?: FactsCache): ScanResult {
  if (!cache) return { files: filesOf(found), ...scanGlobals(root, pipeline), scannedAt: Date.now() };
  let walked: Found[] | null = found;
  let files: Map<string, FileFacts> | null = null;
  return {
    get files(): Map<string, FileFacts> {
      if (!files) {
        files = filesOf(walked!, cache);
        walked = null;
      }
      return files;
    },
    ...scanGlobals(root, pipeline),
    scannedAt: Date.now(),
  };
}
