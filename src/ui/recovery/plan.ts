import { stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type { WorkspaceState } from '../../types.js';
import { loadConfig } from '../../pipeline/config/config.js';
import { presetOf } from '../../pipeline/presets/index.js';
import { RESUME_FILE, parseResumeTime, resumeDrift, writeResume } from '../../resume/io.js';
import { loadRecoveryState, type WorkspaceRead } from '../../recover/load.js';
import { resumeLang } from '../../recover/report.js';
import { checkMemory } from '../../memory/check.js';
import { diffBackup, listBackups } from '../../backups/backups.js';
import { provenTodoIds } from '../../sources/level2.js';
import type { BackupRow, ResumeStatus } from './types.js';

// The disk side of the control room's recovery actions, without the store: how stale
// RESUME.md is, writing the letter the way `checkroom recover` does, what a todo write-back
// would change, and the rows of the backups panel. Each function reads the disk afresh.

const mtimeOf = async (abs: string): Promise<number | null> => (await stat(abs).catch(() => null))?.mtimeMs ?? null;

// Asked on every workspace change (the RESUME.md check): the config is parsed again only
// when checkroom.yaml / checkroom.yml changed, not on every file event.
const resumeFiles = new Map<string, { key: string; file: string }>();

export async function resumeFile(root: string): Promise<string> {
  const key = `${await mtimeOf(join(root, 'checkroom.yaml'))}/${await mtimeOf(join(root, 'checkroom.yml'))}`;
  const hit = resumeFiles.get(root);
  if (hit?.key === key) return hit.file;
  const file = (await loadConfig(root).catch(() => null))?.sources.resume ?? RESUME_FILE;
  resumeFiles.set(root, { key, file });
  return file;
}

/** The newest change on disk the state knows of: an artifact or checkpoint.md. */
export async function lastChangeOnDisk(ws: WorkspaceState): Promise<{ at: number; path: string } | null> {
  let best: { at: number; path: string } | null = null;
  for (const c of ws.cells) if (c.exists && c.mtimeMs && (!best || c.mtimeMs > best.at)) best = { at: c.mtimeMs, path: c.path };
  const cp = ws.checkpoint.exists ? await mtimeOf(join(ws.root, 'checkpoint.md')) : null;
  if (cp !== null && (!best || cp > best.at)) best = { at: cp, path: 'checkpoint.md' };
  return best;
}

/** RESUME.md against the disk (docs/domain.md, RESUME.md: "verifies against the filesystem"). */
export async function resumeStatus(ws: WorkspaceState, now: number): Promise<ResumeStatus> {
  const file = await resumeFile(ws.root);
  const drift = await resumeDrift(ws.root, ws, { file, now });
  const base = { file, exists: drift.exists, ageMs: drift.ageMs, generatedAt: drift.generatedAt, disagreements: drift.disagreements };
  if (!drift.exists) return { ...base, stale: true, why: `${file} is missing` };
  if (drift.disagreements.length) {
    const n = drift.disagreements.length;
    return { ...base, stale: true, why: `${n} statement${n === 1 ? '' : 's'} the disk contradicts` };
  }
  // The letter's own time is minute-precise; its file time says when it was really written.
  const written = Math.max(parseResumeTime(drift.generatedAt) ?? 0, (await mtimeOf(join(ws.root, file))) ?? 0);
  const last = await lastChangeOnDisk(ws);
  if (last && last.at > written + 1000) return { ...base, stale: true, why: `older than the last change on disk (${last.path})` };
  return { ...base, stale: false, why: null };
}

/**
 * Write RESUME.md as `checkroom recover` would: journal decisions, breakers, the memory check;
 * the old letter is backed up. `read`: the live workspace, so the letter does not read the
 * workspace a second time.
 */
export async function writeLetter(ws: WorkspaceState, now: Date, read?: () => Promise<WorkspaceRead>): Promise<{ path: string; backup: string | null }> {
  const root = ws.root;
  const file = await resumeFile(root);
  const lang = (await resumeLang(root, file)) ?? undefined;
  // Without a checkpoint.md (gate files) there is no recovery state to rebuild: the letter is the state's.
  if (!presetOf(ws.preset).has.checkpoint) return writeResume(root, ws, { now, lang, file });
  const { sources: src, state, journal } = await loadRecoveryState(root, now.getTime(), await read?.());
  const memory = await checkMemory(root, state);
  return writeResume(root, state, { now, lang, decisions: journal.decisions, memory, breakers: journal.breakers, checkpointFile: src.config.sources.checkpoint, file });
}

/** The todos a write-back flips to done, one confirmation line each. */
export function writeBackLines(ws: WorkspaceState): { path: string; ids: string[]; lines: string[] } | null {
  const view = ws.todos;
  if (!view || !view.ok) return null;
  const path = relative(ws.root, view.path) || view.path;
  const ids = provenTodoIds(view);
  const lines = view.disagreements
    .filter((d) => ids.includes(d.todoId))
    .map((d) => `${path}: ${d.todoId}: ${d.todo} → done (${d.unit} ${d.step} is done on disk)`);
  return { path, ids, lines };
}

const plural = (n: number, w: string): string => `${n} ${w}${n === 1 ? '' : 's'}`;

/** Every backup of `file`, newest first, with a one-line summary against the current file. */
export async function backupRows(root: string, file: string, now: number): Promise<BackupRow[]> {
  const current = (await mtimeOf(join(root, file))) !== null;
  const rows: BackupRow[] = [];
  for (const b of await listBackups(root, file)) {
    let summary: string;
    try {
      const d = await diffBackup(root, b.path, file);
      summary = d.identical
        ? 'identical to the current file'
        : d.summary
          ? (d.hunks[0] ?? 'too large to diff')
          : !current
            ? `${plural(d.removed, 'line')}; the current file is gone`
            : `−${d.removed} +${d.added} lines vs the current file`;
    } catch (err) {
      summary = `cannot diff: ${(err as Error).message}`;
    }
    rows.push({ path: b.path, bytes: b.bytes, ageMs: Math.max(0, now - (b.stampMs ?? b.mtimeMs)), summary });
  }
  return rows;
}
