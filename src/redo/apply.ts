import { backupFile, copyBackup, restoreBackup, undoBackup } from '../backups/backups.js';
import type { NewJournalEvent } from '../run/journal/journal.js';
import type { UndoRecord } from '../run/journal/triage-ledger.js';
import type { Claim } from '../types.js';
import { readFile } from 'node:fs/promises';
import { inside } from '../backups/fs.js';
import { writeFileAtomic } from '../fs/atomic-write.js';
import { withoutEntries } from './entry.js';
import { RedoError, type RedoMove, type RedoPreview } from './types.js';

// applyRedo and undoRedo: the effects of a previewed redo (docs/redo.md). Either every backup
// is made and ONE journal record names them, or none is left made: a failure half-way moves
// back what it had moved, and nothing is journalled. The files are checked again for a writer
// right before anything is touched: the preview may be a minute old.

export interface RedoPorts {
  /** Appends one journal event (the driver's journal). */
  append(e: NewJournalEvent): Promise<void>;
  /** Sets a cell's claim in checkpoint.md. */
  mark(unit: string, step: string, claim: Claim): Promise<void>;
  /** Path → why it is being written now, asked fresh. */
  live(paths: readonly string[]): ReadonlyMap<string, string>;
  now(): number;
}

const refuseLive = (ports: RedoPorts, paths: readonly string[]): void => {
  const live = ports.live(paths);
  const first = [...live.values()][0];
  if (first !== undefined) throw new RedoError(`${first}; wait until it stops, then try again: nothing was touched`);
};

/** The redone units' entries out of a shared file, now that its copy is made: their entry steps are redone. */
async function dropEntries(root: string, rel: string, units: readonly string[]): Promise<void> {
  const abs = inside(root, rel);
  const r = withoutEntries(await readFile(abs, 'utf8'), units);
  if (r.removed > 0) await writeFileAtomic(abs, r.text, [root]);
}

export async function applyRedo(root: string, p: RedoPreview, ports: RedoPorts): Promise<{ id: string; moves: RedoMove[] }> {
  if (p.refusal) throw new RedoError(p.refusal);
  refuseLive(ports, p.files.map((f) => f.path));
  const at = ports.now();
  const when = new Date(at);
  const moves: RedoMove[] = [];
  try {
    for (const f of p.files) {
      const { backup } = f.shared ? await copyBackup(root, f.path, when) : await backupFile(root, f.path, when);
      moves.push({ path: f.path, backup, copy: f.shared });
      if (f.shared) await dropEntries(root, f.path, p.cells.filter((c) => c.path === f.path).map((c) => c.unit));
    }
  } catch (err) {
    // Never half-done: what was moved goes back, a shared file gets its copy back (the copy stays, as every backup does).
    for (const m of [...moves].reverse()) await (m.copy ? restoreBackup(root, m.backup, when) : undoBackup(root, m.backup, m.path)).catch(() => undefined);
    throw new RedoError(`redo from ${p.origin.unit} ${p.origin.step} not done: ${(err as Error).message}; every file moved was moved back`);
  }
  const id = `redo:${at}:${p.origin.unit}/${p.origin.step}`;
  await ports.append({
    type: 'redo_applied',
    at,
    id,
    unit: p.origin.unit,
    step: p.origin.step,
    cells: p.cells.map((c) => ({ unit: c.unit, step: c.step, path: c.path, claim: c.claim })),
    moves,
    ...(p.override?.agent !== undefined ? { agent: p.override.agent } : {}),
    ...(p.override?.prompt !== undefined ? { prompt: p.override.prompt } : {}),
  });
  // The checkpoint follows the disk: every file moved aside, every entry taken out: not started.
  for (const c of p.cells) await ports.mark(c.unit, c.step, 'not_started');
  return { id, moves };
}

/** Undo a redo: every backup restored over what is there now (which is backed up first), its cells unqueued: one record. */
export async function undoRedo(root: string, group: UndoRecord, ports: RedoPorts): Promise<{ restored: { path: string; backup: string; current: string | null }[] }> {
  if (!group.redo) throw new RedoError(`${group.label} is not a redo`);
  refuseLive(ports, group.moves.map((m) => m.path));
  const at = ports.now();
  const restored: { path: string; backup: string; current: string | null }[] = [];
  for (const m of group.moves) {
    try {
      const r = await restoreBackup(root, m.backup, new Date(at));
      restored.push({ path: m.path, backup: m.backup, current: r.currentBackedUpTo });
    } catch (err) {
      // Not journalled: the undo stays on the stack, and a second one restores again, harmlessly (each restore backs up what it replaces).
      throw new RedoError(`undo of ${group.label} stopped at ${m.path}: ${(err as Error).message}${restored.length ? `; ${restored.length} file(s) restored before it` : ''}`);
    }
  }
  await ports.append({ type: 'redo_undone', at, id: group.id, moves: restored });
  // checkpoint.md gets back the claims it had before the redo.
  for (const c of group.redo.cells) if (c.claim !== null) await ports.mark(c.unit, c.step, c.claim as Claim);
  return { restored };
}
