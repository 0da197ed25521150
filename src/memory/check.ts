import { closeSync, fstatSync, read } from 'node:fs';
import { promisify } from 'node:util';
import { Confine } from '../scan/confine.js';
import { join } from 'node:path';
import type { Cell, StepDef, WorkspaceState } from '../types.js';
import { cellKey } from '../types.js';
import { sanitizeLine } from '../text/sanitize.js';
import { memoryCut } from './cut.js';
import { compilePattern } from '../pipeline/safe-pattern.js';
import type { EntryWhy, Why } from '../reasons/why.js';
import { say, sayEntry, saySource } from '../reasons/say.js';
import { entryExpected, rebuildSourceOf, type RebuildFrom } from './sources.js';

// Long-memory integrity (docs/domain.md, What goes wrong, scenario 3): long-memory files missing, empty or
// cut off, and finished chapters without their entry. Each finding comes with the rebuild
// plan from the best source — the final chapter, else the marked draft, else a redo — and
// the reason, so the operator sees why. Reads only the long-memory files (bounded), the rest
// comes from the reconciled state: O(cells) with Maps.

export type MemoryIssueKind = 'missing' | 'truncated' | 'no_entry' | 'empty';

export interface MemoryIssue {
  file: string;
  kind: MemoryIssueKind;
  unit?: string;
  /** In English (UI, JSON). */
  detail: string;
  /** The same finding as data (reasons/say.ts), for RESUME.md in the workspace's language. */
  why: Why;
}

const issue = (at: Omit<MemoryIssue, 'detail' | 'why'>, why: Why): MemoryIssue => ({ ...at, detail: say(why), why });

export interface MemoryRebuild {
  unit: string;
  from: RebuildFrom;
  source: string | null;
  /** Long-memory files this unit's rebuild writes to. */
  files: string[];
  reason: string;
}

export interface MemoryCheck {
  /** Long-memory files checked, workspace-relative. */
  files: string[];
  issues: MemoryIssue[];
  rebuild: MemoryRebuild[];
}

const MAX_BYTES = 4 * 1024 * 1024;
const readAt = promisify(read);

/** Opened the way the scan opens artifacts: no symlink out of the workspace, no blocking FIFO. */
async function readText(abs: string, confine: Confine): Promise<{ text: string; error?: string } | null> {
  let fd: number;
  try {
    const opened = confine.open(abs);
    if (typeof opened !== 'number') return { text: '', error: opened.refused };
    fd = opened;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? null : { text: '', error: `cannot read it (${code ?? String(err)})` };
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return { text: '', error: 'not a file' };
    const buf = Buffer.alloc(Math.min(st.size, MAX_BYTES));
    const { bytesRead } = await readAt(fd, buf, 0, buf.length, 0);
    return { text: buf.subarray(0, bytesRead).toString('utf8') };
  } catch (err) {
    return { text: '', error: `cannot read it (${(err as NodeJS.ErrnoException).code ?? String(err)})` };
  } finally {
    closeSync(fd);
  }
}

/** Entries of a long-memory file: the text under each heading that names a unit. */
export function splitEntries(text: string, pattern: string): Map<string, string> {
  const out = new Map<string, string>();
  // Workspace text against a config pattern: RE2, linear in the file.
  const heads = compilePattern(`^#{1,6}\\s.*?\\b(${pattern})\\b.*$`, 'm').matchAll(text);
  heads.forEach((m, i) => {
    const start = m.index + m.groups[0]!.length;
    // An entry runs to the next heading of any unit, or to the next heading of the same or a higher level.
    const level = /^#+/.exec(m.groups[0]!)![0].length;
    const endUnit = heads[i + 1]?.index ?? text.length;
    const rest = text.slice(start, endUnit);
    const higher = new RegExp(`^#{1,${level}}\\s`, 'm').exec(rest);
    const body = higher ? rest.slice(0, higher.index) : rest;
    const unit = m.groups[1];
    if (unit !== undefined && !out.has(unit)) out.set(unit, body);
  });
  return out;
}

const stripHeading = (text: string): string => text.replace(/^#{1,6}\s.*$/gm, '').trim();

/** Long-memory files of a pipeline: the entry steps' files and the artifacts of the phase that holds them. */
export function memoryFilesOf(state: WorkspaceState): string[] {
  const entryPaths = state.pipeline.steps.filter((s) => s.kind === 'entry').map((s) => s.path);
  const files = new Set(entryPaths);
  for (const p of state.pipeline.phases) if (p.artifacts.some((a) => files.has(a) || entryPaths.includes(a))) for (const a of p.artifacts) files.add(a);
  return [...files];
}

const fileLabel = (file: string, entryPaths: ReadonlySet<string>): string => (entryPaths.has(file) ? 'summary' : `entries in ${file}`);

/** Read each long-memory file: its text, or an issue for it (missing, unreadable, empty, cut off). */
async function readMemoryFiles(
  root: string,
  state: WorkspaceState,
  files: readonly string[],
  entryPaths: ReadonlySet<string>,
  started: boolean,
  issues: MemoryIssue[],
): Promise<{ texts: Map<string, string>; brokenFiles: string[] }> {
  const texts = new Map<string, string>();
  const brokenFiles: string[] = [];
  const confine = new Confine(root, state.pipeline.outsideRoots);
  for (const file of files) {
    const read = await readText(join(root, file), confine);
    if (!read) {
      if (started) {
        issues.push(issue({ file, kind: 'missing' }, { k: 'mem_absent', file }));
        brokenFiles.push(file);
      }
      continue;
    }
    if (read.error) {
      issues.push(issue({ file, kind: 'missing' }, { k: 'mem_unreadable', file, error: read.error }));
      brokenFiles.push(file);
      continue;
    }
    texts.set(file, read.text);
    if (stripHeading(read.text) === '') {
      // An entry file may legitimately hold no entry yet; that is judged per unit below.
      if (!entryPaths.has(file) && started) {
        issues.push(issue({ file, kind: 'empty' }, { k: 'mem_empty', file, titled: read.text.trim() !== '' }));
        brokenFiles.push(file);
      }
      continue;
    }
    const sign = memoryCut(read.text);
    if (sign && !entryPaths.has(file)) {
      issues.push(issue({ file, kind: 'truncated' }, { k: 'mem_cut', file, sign }));
      brokenFiles.push(file);
    }
  }
  return { texts, brokenFiles };
}

export async function checkMemory(root: string, state: WorkspaceState): Promise<MemoryCheck> {
  const files = memoryFilesOf(state);
  const entrySteps = state.pipeline.steps.filter((s) => s.kind === 'entry');
  const entryPaths = new Set(entrySteps.map((s) => s.path));
  const issues: MemoryIssue[] = [];
  const byKey = new Map<string, Cell>();
  for (const c of state.cells) byKey.set(cellKey(c.unit, c.step), c);
  const started = state.cells.some((c) => c.status !== 'not_started');

  // File-level integrity.
  const { texts, brokenFiles } = await readMemoryFiles(root, state, files, entryPaths, started, issues);

  // Per-unit entries.
  const needs = new Map<string, { files: Set<string>; why: string[] }>();
  const need = (unit: string, file: string, why: string): void => {
    const n = needs.get(unit) ?? { files: new Set<string>(), why: [] };
    n.files.add(file);
    n.why.push(why);
    needs.set(unit, n);
  };
  const finished = new Set<string>();
  for (const step of entrySteps) {
    const text = texts.get(step.path);
    const entries = text === undefined ? new Map<string, string>() : splitEntries(text, state.pipeline.units.pattern);
    const dependents = state.pipeline.steps.filter((s) => s.dependsOn.includes(step.id));
    const batchesWithEntry = new Set<number>();
    for (const u of state.units) {
      const c = byKey.get(cellKey(u, step.id));
      if (c && c.batch !== null && entries.has(u)) batchesWithEntry.add(c.batch);
    }
    for (const unit of state.units) {
      const cell = byKey.get(cellKey(unit, step.id));
      if (!cell) continue;
      const body = entries.get(unit);
      if (body !== undefined) {
        finished.add(unit);
        const trimmed = body.trim();
        const sign = trimmed === '' ? null : memoryCut(body);
        if (trimmed === '') {
          issues.push(issue({ file: step.path, kind: 'empty', unit }, { k: 'entry_empty', unit, file: step.path }));
          need(unit, step.path, 'its entry is empty');
        } else if (sign) {
          issues.push(issue({ file: step.path, kind: 'truncated', unit }, { k: 'entry_cut', unit, file: step.path, sign }));
          need(unit, step.path, 'its entry is cut off');
        }
        continue;
      }
      const why = entryExpected(cell, dependents.map((d) => byKey.get(cellKey(unit, d.id))).filter((x): x is Cell => !!x)) ?? batchRan(cell, step, byKey, batchesWithEntry);
      if (!why) continue;
      finished.add(unit);
      issues.push(issue({ file: step.path, kind: 'no_entry', unit }, { k: 'no_entry', unit, file: step.path, because: why }));
      need(unit, step.path, sayEntry(why));
    }
  }
  // A broken shared file (glossary, metaphors, cross-references) is rebuilt from every finished chapter.
  for (const file of brokenFiles) if (!entryPaths.has(file)) for (const unit of state.units) if (finished.has(unit)) need(unit, file, `${file} is damaged`);

  const rebuild: MemoryRebuild[] = [];
  const entryStep = entrySteps[0];
  for (const unit of state.units) {
    const n = needs.get(unit);
    if (!n || !entryStep) continue;
    const src = rebuildSourceOf(unit, state.pipeline, entryStep, byKey);
    const labels = [...n.files].map((f) => fileLabel(f, entryPaths));
    const what = labels.length === 1 ? labels[0] : `${labels.slice(0, -1).join(', ')} and ${labels.at(-1)}`;
    const reason =
      src.from === 'redo'
        ? `redo ${unit} to rebuild its ${what}: no final chapter and no marked draft (${n.why[0]})`
        : `rebuild ${unit}'s ${what} from ${saySource(src)} (${n.why[0]})`;
    rebuild.push({ unit, from: src.from, source: src.source, files: [...n.files], reason: sanitizeLine(reason) });
  }
  return { files, issues, rebuild };
}

/** The batch's long-memory update ran (another chapter of the batch has its entry) and skipped this one, whose panel is done. */
function batchRan(cell: Cell, step: StepDef, byKey: ReadonlyMap<string, Cell>, batchesWithEntry: ReadonlySet<number>): EntryWhy | null {
  if (cell.status === 'done' || cell.status === 'running' || cell.batch === null || !batchesWithEntry.has(cell.batch)) return null;
  if (!step.dependsOn.every((d) => byKey.get(cellKey(cell.unit, d))?.status === 'done')) return null;
  return { k: 'batch_ran', deps: [...step.dependsOn], batch: cell.batch };
}
