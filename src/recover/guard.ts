import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { WorkspaceState } from '../types.js';
import type { Sources } from '../workspace.js';
import { WorkspaceError } from '../workspace.js';
import { CONFIG_FILE } from '../pipeline/config/config.js';
import { presetOf } from '../pipeline/presets/index.js';
import { describePatternMiss, explainPatternMiss } from '../scan/units.js';
import { sanitizeLine } from '../text/sanitize.js';
import type { JournalFacts } from './load.js';
import { heldOutputs } from '../holders/held-outputs.js';

// Before `recover` writes anything: is this a pipeline workspace, and does the view it would
// rebuild from see the pipeline at all? Rebuilding checkpoint.md and RESUME.md from an empty
// view would write files into any directory, or replace a real checkpoint with a 0-chapter
// one (reviewer findings 1 and 2). A refusal is exit 2, nothing written, dry run or not.

/** Recovery declined before any write; the message says why and what to do. Exit 2 at the entry. */
export class RecoverRefused extends WorkspaceError {
  readonly kind: 'not_workspace' | 'pattern_miss';
  constructor(kind: RecoverRefused['kind'], message: string) {
    super(message);
    this.name = 'RecoverRefused';
    this.kind = kind;
  }
}

/** Any sign of a pipeline on disk besides the units: phase evidence, long-memory files, a todo table, a journal. */
function pipelineSigns(src: Sources, state: WorkspaceState, journal: JournalFacts): boolean {
  const p = src.config.pipeline;
  const files = [...p.phases.flatMap((ph) => ph.artifacts), ...p.steps.filter((s) => !s.path.includes('{unit}')).map((s) => s.path)];
  if (files.some((f) => existsSync(join(src.root, f)))) return true;
  return state.todos != null || journal.events > 0 || journal.warnings.length > 0;
}

/** Throws RecoverRefused when recovery must not run here; otherwise returns. Reads, never writes. */
export function guardRecovery(dir: string, src: Sources, state: WorkspaceState, journal: JournalFacts): void {
  if (presetOf(src.config.preset).readOnlyRecovery) return; // its files are only read, never rewritten
  const { checkpoint, resume } = src.config.sources;
  const has = (f: string): boolean => existsSync(join(src.root, f));
  // First: files or rows shaped like the pipeline's, under other ids, make this a workspace whose pattern is wrong.
  const miss = explainPatternMiss(src.root, src.config.pipeline, checkpoint, state.units);
  if (miss) {
    const fix = has(CONFIG_FILE)
      ? `Set units.pattern in ${CONFIG_FILE} to a regex that matches these ids, or list them in units.list.`
      : `That pattern is the ${src.config.preset} preset's default: create ${CONFIG_FILE} with units: { pattern: '…' } matching these ids, or list them in units.list.`;
    throw new RecoverRefused(
      'pattern_miss',
      `${sanitizeLine(describePatternMiss(miss, checkpoint))}.\n` +
        `Recovery would rebuild ${checkpoint} and ${resume} from an empty view of ${sanitizeLine(basename(src.root))}, so nothing was written. ` +
        fix,
    );
  }
  if (state.units.length === 0 && !has(CONFIG_FILE) && !has(checkpoint) && !has(resume) && !pipelineSigns(src, state, journal)) {
    throw new RecoverRefused(
      'not_workspace',
      `${sanitizeLine(dir)} does not look like a pipeline workspace: no ${CONFIG_FILE}, no ${checkpoint}, no ${resume} and no artifact of the pipeline (0 chapters found); nothing was written.\n` +
        `Run checkroom recover in the pipeline's directory (checkroom recover path/to/workspace). To start a new pipeline here, create ${CONFIG_FILE} first (an empty file selects the book preset).`,
    );
  }
}

/**
 * Why `rel` cannot be replaced by a file, or null when it can (missing or a regular file):
 * a directory (or a socket, a device) under the name of a file checkroom writes.
 */
export async function notReplaceable(root: string, rel: string): Promise<string | null> {
  // stat, not lstat: the backup and the write follow a link, so what it points to decides.
  const st = await stat(join(root, rel)).catch(() => null);
  if (!st) return null;
  if (st.isFile()) {
    // A process holds it open for writing: the rewrite would land beside its bytes, not under them.
    const held = heldOutputs(root, [rel], new Set()).get(rel);
    return held ? `${held}, then run checkroom recover again` : null;
  }
  const what = st.isDirectory() ? 'a directory' : 'not a regular file';
  return `${rel} is ${what}, so checkroom cannot back it up or replace it; move it aside (mv ${rel} ${rel}.old) and run checkroom recover again`;
}
