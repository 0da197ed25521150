import { join } from 'node:path';
import type { Sources } from '../workspace.js';
import { readCheckpoint } from '../checkpoint/io.js';
import { readLevel2 } from '../sources/level2.js';
import { confineOf, readEntries, scanStep } from '../scan/scan.js';
import { readFileFacts } from '../scan/file-facts.js';
import { collectUnits, compareUnits, fileNameMatcher, unitPath, unitPatternWarnings } from '../scan/units.js';
import { batchesOf } from '../state/derive.js';
import type { PathKind } from './path-kind.js';
import type { LiveReaders } from './live-model.js';
import { keepLastLine } from './lean-facts.js';

// A batch of changed paths applied to the sources in memory: each path re-read alone, never
// the whole tree. Says what changed, so the derivation redoes only that.

export interface Applied {
  /** Units whose cells may differ. */
  units: Set<string>;
  /** The unit list, the checkpoint or every unit changed: derive everything again. */
  structure: boolean;
}

const checkpointUnits = (src: Sources): string[] => (src.checkpoint?.batches ?? []).flatMap((b) => b.rows.map((r) => r.unit));

// The unit list as a set, kept beside the list it was made from (one event
// must not cost a pass over every unit). Units are only ever pushed here, through `known`;
// a list replaced whole (a reload, a fresh collect) gets its own set on first use.
const unitSets = new WeakMap<string[], Set<string>>();
const knownOf = (units: string[]): Set<string> => {
  let s = unitSets.get(units);
  if (!s) unitSets.set(units, (s = new Set(units)));
  return s;
};

/** Mutates `src`; every path's kind is already known (irrelevant paths never get here). */
export async function applyPaths(src: Sources, batch: ReadonlyMap<string, PathKind>, readers: LiveReaders = { checkpoint: readCheckpoint }): Promise<Applied> {
  const { pipeline, sources } = src.config;
  // One confinement per batch of events: symlinks out of the workspace stay unread.
  const confine = confineOf(src.root, pipeline);
  const out: Applied = { units: new Set(), structure: false };
  const known = knownOf(src.units);
  let unitsChanged = false;
  let mayBeGone: string[] = [];
  let rejected = false;
  for (const [rel, k] of batch) {
    if (k.todos) src.todos = readLevel2(src.root, src.config);
    if (k.checkpoint) {
      src.checkpoint = await readers.checkpoint(src.root, pipeline, sources.checkpoint);
      out.structure = true;
      for (const u of checkpointUnits(src)) {
        if (known.has(u)) continue;
        known.add(u);
        src.units.push(u);
        unitsChanged = true;
      }
    }
    if (k.global) {
      const f = readFileFacts(join(src.root, rel), rel, null, { confine });
      src.scan.artifacts.set(rel, f.exists && f.bytes > 0 && !f.error);
    }
    if (k.entry) {
      const { facts, units } = readEntries(src.root, rel, pipeline.units.pattern, confine);
      src.scan.entries.set(rel, units);
      src.scan.entryFiles.set(rel, facts);
      // Every unit's entry cell carries the shared file's facts.
      for (const u of src.units) out.units.add(u);
    }
    if (k.rejected) rejected = true;
    for (const { step, unit } of k.hits) {
      if (!known.has(unit)) {
        if (pipeline.units.list) continue;
        known.add(unit);
        src.units.push(unit);
        unitsChanged = true;
      }
      const facts = keepLastLine(scanStep(src.root, step, unit, confine));
      src.scan.files.set(facts.path, facts);
      out.units.add(unit);
      if (!facts.exists) mayBeGone.push(unit);
    }
  }
  // A checkpoint row removed, a unit's last file deleted or moved away: the unit goes too.
  // A unit with another file on disk stays for sure; only otherwise are the directories listed.
  const hasFile = (u: string): boolean => pipeline.steps.some((s) => s.kind === 'file' && fileNameMatcher(s, pipeline.units.pattern) && src.scan.files.get(unitPath(s, u))?.exists);
  mayBeGone = mayBeGone.filter((u) => !hasFile(u));
  if (mayBeGone.length) {
    const evidence = new Set([...checkpointUnits(src), ...batchesOf(pipeline, src.checkpoint).flatMap((b) => b.units)]);
    mayBeGone = mayBeGone.filter((u) => !evidence.has(u));
  }
  if ((batchHas(batch, 'checkpoint') || mayBeGone.length) && !pipeline.units.list) {
    const fresh = collectUnits(src.root, pipeline, checkpointUnits(src), batchesOf(pipeline, src.checkpoint).flatMap((b) => b.units));
    if (fresh.join() !== src.units.join()) {
      src.units = fresh;
      unitsChanged = true;
    }
  }
  if (unitsChanged) {
    src.units.sort(compareUnits);
    out.structure = true;
    // A new unit's other cells have never been read.
    for (const unit of src.units)
      for (const step of pipeline.steps)
        if (step.kind === 'file' && !src.scan.files.has(unitPath(step, unit))) {
          const facts = keepLastLine(scanStep(src.root, step, unit, confine));
          src.scan.files.set(facts.path, facts);
        }
  }
  // The pattern-miss warning looks at checkpoint rows and rejected names, and only while no unit is found.
  if (out.structure || rejected) src.warnings = unitPatternWarnings(src.root, pipeline, sources.checkpoint, src.units);
  src.scan.scannedAt = Date.now();
  return out;
}

const batchHas = (batch: ReadonlyMap<string, PathKind>, what: 'checkpoint'): boolean => [...batch.values()].some((k) => k[what]);
