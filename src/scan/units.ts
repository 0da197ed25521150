import { readdirSync } from 'node:fs';
import { join, posix } from 'node:path';
import type { PipelineDef, StepDef } from '../types.js';

// Units come from everywhere they can be seen: the config's list, the batches, the
// checkpoint rows, and file names on disk (a chapter that exists only on disk still shows
// up — DOMAIN.md scenario 4). With `units.list` set, the list is the whole truth.

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Natural order: ch2 before ch10. */
const collator = new Intl.Collator('en', { numeric: true });
export const compareUnits = (a: string, b: string): number => collator.compare(a, b);

export const unitPath = (step: StepDef, unit: string): string => step.path.replaceAll('{unit}', unit);

/** A regex for the file names of a step whose last path segment holds `{unit}`. */
export function fileNameMatcher(step: StepDef, unitPattern: string): { dir: string; re: RegExp } | null {
  const dir = posix.dirname(step.path);
  const base = posix.basename(step.path);
  if (dir.includes('{unit}') || !base.includes('{unit}')) return null;
  const re = new RegExp(`^${base.split('{unit}').map(escapeRe).join(`(${unitPattern})`)}$`);
  return { dir, re };
}

export function discoverUnitsOnDisk(root: string, pipeline: PipelineDef): Set<string> {
  const found = new Set<string>();
  const byDir = new Map<string, RegExp[]>();
  for (const step of pipeline.steps) {
    if (step.kind !== 'file') continue;
    const m = fileNameMatcher(step, pipeline.units.pattern);
    if (!m) continue;
    byDir.set(m.dir, [...(byDir.get(m.dir) ?? []), m.re]);
  }
  for (const [dir, res] of byDir) {
    let names: string[];
    try {
      names = readdirSync(join(root, dir));
    } catch {
      continue; // missing or unreadable directory: nothing to discover there
    }
    for (const name of names) {
      for (const re of res) {
        const m = re.exec(name);
        if (m) found.add(m[1]);
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
): string[] {
  if (pipeline.units.list) return [...pipeline.units.list];
  const all = new Set<string>([...fromCheckpoint, ...fromBatches, ...discoverUnitsOnDisk(root, pipeline)]);
  return [...all].sort(compareUnits);
}
