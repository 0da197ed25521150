import { readFile } from 'node:fs/promises';
import { backupFile, copyBackup, undoBackup } from '../../backups/backups.js';
import { exists, inside } from '../../backups/fs.js';
import { formatStamp } from '../../backups/stamp.js';
import { writeFileAtomic } from '../../fs/atomic-write.js';
import { markerLine } from '../../scan/marker.js';

// The Partials view's actions on disk (docs/domain.md, Half-products). Each action is planned first
// — exactly which files change and how, shown in the confirmation — then run. Nothing is
// ever deleted or overwritten: moves go to `file.bak.<stamp>` through backups.ts.

export interface Move {
  path: string;
  /** The backup name the file moves (or is copied) to. */
  backup: string;
}

/** The name backupFile/copyBackup will pick at `now`: the first of `.bak.<stamp>`, `-1`, `-2`… that is free. */
export async function predictBackup(root: string, rel: string, now: Date, taken: ReadonlySet<string> = new Set()): Promise<string> {
  const base = `${rel}.bak.${formatStamp(now)}`;
  for (let n = 0; n < 10_000; n++) {
    const candidate = n === 0 ? base : `${base}-${n}`;
    if (!taken.has(candidate) && !(await exists(inside(root, candidate)))) return candidate;
  }
  return `${base}-?`;
}

export async function planMoves(root: string, paths: readonly string[], now: Date): Promise<Move[]> {
  const taken = new Set<string>();
  const moves: Move[] = [];
  for (const path of paths) {
    const backup = await predictBackup(root, path, now, taken);
    taken.add(backup);
    moves.push({ path, backup });
  }
  return moves;
}

/** The copies keep makes of several files at `now`, each name distinct (`m` on marks). */
export const keepBackups = async (root: string, paths: readonly string[], now: Date): Promise<string[]> => (await planMoves(root, paths, now)).map((m) => m.backup);

/** Move each file to its backup name. Returns the names actually used (a name taken since the plan gets `-1`). */
export async function runMoves(root: string, moves: readonly Move[], now: Date): Promise<Move[]> {
  const done: Move[] = [];
  for (const m of moves) done.push({ path: m.path, backup: (await backupFile(root, m.path, now)).backup });
  return done;
}

/** Keep: copy to a backup, then append the marker as the last line, atomically. */
export async function runKeep(root: string, rel: string, marker: string, now: Date): Promise<Move> {
  const abs = inside(root, rel);
  const { backup } = await copyBackup(root, rel, now);
  const text = await readFile(abs, 'utf8');
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const body = text === '' || text.endsWith('\n') ? text : text + eol;
  await writeFileAtomic(abs, `${body}${markerLine(marker)}${eol}`, [root]);
  return { path: rel, backup };
}

/** Undo moves, newest first, so a file backed up twice gets its latest version back. */
export async function undoMoves(root: string, moves: readonly Move[]): Promise<string[]> {
  const restored: string[] = [];
  for (const m of [...moves].reverse()) restored.push((await undoBackup(root, m.backup, m.path)).restored);
  return restored;
}

