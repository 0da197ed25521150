import { existsSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { PipelineDef, StepDef } from '../types.js';
import { copyBackup, listBackups } from '../backups/backups.js';
import { readEntries } from '../scan/scan.js';

// Shared long-memory files around an agent that writes them (docs/domain.md, What goes wrong, scenario 3). An archivist rewrites meta/chapter-summaries.md — and the other
// meta/ files beside it (glossary, metaphors) — as a whole: one that truncates the file
// loses the entries of chapters finished long ago, and its own entry still looks written.
// Before the run: a copy of each file (never overwriting a backup; an identical newest copy is
// reused) and the entries present.
// After it: an entry present before and gone now is a loss, and the run failed.

export interface MemoryGuard {
  /** The shared file the step's entries live in. */
  file: string;
  /** Units whose entry was in it before the run. */
  before: Set<string>;
  /** Workspace-relative backups made before the run, one per file that existed. */
  backups: { file: string; backup: string }[];
}

/** Long-memory files an entry step's agent may rewrite: its own file and the pipeline's files beside it. */
export function sharedMemoryFiles(pipeline: PipelineDef, step: StepDef): string[] {
  const dir = dirname(step.path);
  const beside = pipeline.phases.flatMap((p) => p.artifacts).filter((f) => dirname(f) === dir);
  return [...new Set([step.path, ...beside])];
}

const isFile = (abs: string): boolean => existsSync(abs) && statSync(abs).isFile();

const SAME_LIMIT = 8 * 1024 * 1024;

/**
 * The newest backup when it already holds exactly this content: one copy per version, not
 * one per run (five meta/ files for every chapter of every batch would bury the real ones).
 */
async function sameAsNewest(root: string, file: string): Promise<string | null> {
  const newest = (await listBackups(root, file))[0];
  const size = statSync(join(root, file)).size;
  if (!newest || newest.bytes !== size || size > SAME_LIMIT) return null;
  const [a, b] = await Promise.all([readFile(join(root, file)), readFile(join(root, newest.path))]);
  return a.equals(b) ? newest.path : null;
}

/** Back up the shared files and note the entries, before an entry step runs; null for other steps. */
export async function guardMemory(root: string, pipeline: PipelineDef, step: StepDef, now: Date): Promise<MemoryGuard | null> {
  if (step.kind !== 'entry') return null;
  const backups: MemoryGuard['backups'] = [];
  for (const file of sharedMemoryFiles(pipeline, step)) {
    if (isFile(join(root, file))) backups.push({ file, backup: (await sameAsNewest(root, file)) ?? (await copyBackup(root, file, now)).backup });
  }
  return { file: step.path, before: readEntries(root, step.path, pipeline.units.pattern).units, backups };
}

/** Entries the run lost (present before, gone now), in the order they were listed; [] when none. */
export function lostEntries(root: string, pipeline: PipelineDef, guard: MemoryGuard): string[] {
  const after = readEntries(root, guard.file, pipeline.units.pattern).units;
  return [...guard.before].filter((u) => !after.has(u));
}

/** The failure a loss is, with where the file before the run is. */
export function lossReason(guard: MemoryGuard, lost: readonly string[]): string {
  const kept = guard.backups.find((b) => b.file === guard.file)?.backup;
  return (
    `the run lost the entries of ${lost.join(', ')} from ${guard.file} (${guard.before.size} before, ${guard.before.size - lost.length} kept)` +
    `${kept ? `; the file as it was before the run is ${kept}` : ''} — restore it (or merge) before running this step again`
  );
}
