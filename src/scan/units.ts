import { readdirSync, readFileSync, statSync } from 'node:fs';
import { CHECKPOINT_MAX_BYTES } from '../checkpoint/io.js';
import { join, posix } from 'node:path';
import type { PipelineDef, StepDef, Warning } from '../types.js';
import { cleanUnit, headingIndex, isSeparatorRow, isTableLine, isUnitHeading, splitRow, unitMatcher } from '../checkpoint/table.js';
import { norm } from '../checkpoint/i18n.js';
import { DirListings } from './dir-listings.js';
import { compilePattern, escapePattern, type SafePattern } from '../pipeline/safe-pattern.js';

// Units come from everywhere they can be seen: the config's list, the batches, the
// checkpoint rows, and file names on disk (a chapter that exists only on disk still shows
// up — docs/domain.md, What goes wrong, scenario 4). With `units.list` set, the list is the whole truth.

/** Natural order: ch2 before ch10. */
const collator = new Intl.Collator('en', { numeric: true });
export const compareUnits = (a: string, b: string): number => collator.compare(a, b);

/** A path template with `{unit}` expanded: the one place that spelling is filled in. */
export const expandUnit = (template: string, unit: string): string => template.replaceAll('{unit}', unit);

export const unitPath = (step: StepDef, unit: string): string => expandUnit(step.path, unit);

/** The unit id in a file name matched by fileNameMatcher's pattern (its first group). */
export const unitOfName = (re: SafePattern, name: string): string | null => re.exec(name)?.groups[1] ?? null;

/**
 * A pattern for the file names of a step whose last path segment holds `{unit}`; group 1 is
 * the unit. Compiled once per template and unit pattern (safe-pattern.ts: RE2 unless proven
 * linear); throws PatternError for a pattern the config loader refuses.
 */
export function fileNameMatcher(step: StepDef, unitPattern: string): { dir: string; re: SafePattern } | null {
  const dir = posix.dirname(step.path);
  const base = posix.basename(step.path);
  if (dir.includes('{unit}') || !base.includes('{unit}')) return null;
  const re = compilePattern(`^${base.split('{unit}').map(escapePattern).join(`(${unitPattern})`)}$`);
  return { dir, re };
}

export function discoverUnitsOnDisk(root: string, pipeline: PipelineDef, dirs = new DirListings(root)): Set<string> {
  const found = new Set<string>();
  const byDir = new Map<string, SafePattern[]>();
  for (const step of pipeline.steps) {
    if (step.kind !== 'file') continue;
    const m = fileNameMatcher(step, pipeline.units.pattern);
    if (!m) continue;
    byDir.set(m.dir, [...(byDir.get(m.dir) ?? []), m.re]);
  }
  for (const [dir, res] of byDir) {
    const names = dirs.list(dir);
    if (!Array.isArray(names)) continue; // missing or unreadable directory: nothing to discover there
    for (const name of names) {
      for (const re of res) {
        const unit = unitOfName(re, name);
        if (unit !== null) found.add(unit);
      }
    }
  }
  return found;
}

export function collectUnits(
  root: string,
  pipeline: PipelineDef,
  fromCheckpoint: Iterable<string>,
  fromBatches: Iterable<string>,
  dirs?: DirListings,
): string[] {
  if (pipeline.units.list) return [...pipeline.units.list];
  const all = new Set<string>([...fromCheckpoint, ...fromBatches, ...discoverUnitsOnDisk(root, pipeline, dirs)]);
  return [...all].sort(compareUnits);
}

/**
 * What `units.pattern` saw and rejected when it found no unit at all: the unit ids of
 * checkpoint.md's rows, and file names in the steps' directories shaped like step outputs.
 * Both are dropped silently elsewhere (a row or file whose id does not match is not a unit),
 * so a pattern that matches nothing would otherwise read as an empty pipeline.
 */
export interface PatternMiss {
  pattern: string;
  /** Unit ids of checkpoint.md rows the pattern rejects, in file order. */
  rows: string[];
  /** Step output files whose unit part the pattern rejects (`research/ch01-research.md`). */
  files: string[];
}

const MISS_SHOW = 4;

/** Unit ids from the unit column of checkpoint.md's tables (rows under a header that names a unit column or a step). */
export function checkpointRowUnits(text: string, pipeline: PipelineDef): string[] {
  const steps = headingIndex(pipeline);
  const out: string[] = [];
  let inTable = false;
  let unitTable = false;
  for (const raw of text.split(/\r?\n/)) {
    if (!isTableLine(raw)) {
      inTable = false;
      continue;
    }
    const cells = splitRow(raw);
    if (!inTable) {
      inTable = true;
      unitTable = cells.length > 1 && (isUnitHeading(cells[0].text) || cells.slice(1).some((c) => steps.has(norm(c.text))));
      continue;
    }
    if (!unitTable || isSeparatorRow(cells) || !cells.length) continue;
    const unit = cleanUnit(cells[0].text);
    if (unit && !out.includes(unit)) out.push(unit);
  }
  return out;
}

/** Step output files whose `{unit}` part `accepts` rejects, per step directory (at most `cap`). */
function rejectedFiles(root: string, pipeline: PipelineDef, accepts: (s: string) => boolean, cap: number): string[] {
  const out: string[] = [];
  for (const step of pipeline.steps) {
    if (step.kind !== 'file') continue;
    const loose = fileNameMatcher(step, '.+?');
    if (!loose) continue;
    let names: string[];
    try {
      names = readdirSync(join(root, loose.dir)).sort(compareUnits);
    } catch {
      continue;
    }
    for (const name of names) {
      const unit = unitOfName(loose.re, name);
      if (unit === null || accepts(unit)) continue;
      out.push(posix.join(loose.dir, name));
      if (out.length >= cap) return out;
    }
  }
  return out;
}

/**
 * When discovery found no unit (`units` empty) and no `units.list` is set: what the pattern
 * rejected. Null when units were found, or when nothing was rejected (a new pipeline).
 */
export function explainPatternMiss(root: string, pipeline: PipelineDef, checkpointFile: string, units: readonly string[]): PatternMiss | null {
  if (units.length > 0 || pipeline.units.list?.length) return null;
  const accepts = unitMatcher(pipeline);
  let text = '';
  try {
    // Only read when nothing was found: the everyday scan never pays for this.
    // Past the checkpoint cap the scan already says so; this hint is not worth the read.
    const abs = join(root, checkpointFile);
    if (statSync(abs).size <= CHECKPOINT_MAX_BYTES) text = readFileSync(abs, 'utf8');
  } catch {
    // missing or unreadable: the scan already says so
  }
  const rows = checkpointRowUnits(text, pipeline).filter((u) => !accepts(u));
  const files = rejectedFiles(root, pipeline, accepts, 50);
  if (!rows.length && !files.length) return null;
  return { pattern: pipeline.units.pattern, rows, files };
}

const list = (xs: string[], n: number): string => `${xs.slice(0, MISS_SHOW).join(', ')}${n > MISS_SHOW ? ', …' : ''}`;

/** One sentence: `units.pattern 'chapter-\d+' matches no unit; checkpoint.md names ch01, ch02, …; files on disk: …`. */
export function describePatternMiss(m: PatternMiss, checkpointFile: string): string {
  const seen = [
    m.rows.length ? `${checkpointFile} names ${list([...m.rows].sort(compareUnits), m.rows.length)}${m.rows.length > MISS_SHOW ? ` (${m.rows.length} rows)` : ''}` : null,
    m.files.length ? `${m.files.length >= 50 ? '50+' : m.files.length} step output${m.files.length === 1 ? '' : 's'} on disk do${m.files.length === 1 ? 'es' : ''} not match (${list(m.files, m.files.length)})` : null,
  ].filter(Boolean);
  return `units.pattern '${m.pattern}' matches no unit; ${seen.join('; ')}`;
}

/** The same as warnings, for every command's scan (empty when units were found or nothing was rejected). */
export function unitPatternWarnings(root: string, pipeline: PipelineDef, checkpointFile: string, units: readonly string[]): Warning[] {
  const m = explainPatternMiss(root, pipeline, checkpointFile, units);
  return m ? [{ source: 'checkroom.yaml', message: `${describePatternMiss(m, checkpointFile)}: set units.pattern to a regex that matches these ids (or list them in units.list)` }] : [];
}
