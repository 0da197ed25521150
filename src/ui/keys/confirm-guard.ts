import { statSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { liveWriters, writerOf, writingWhy } from '../agents/live-writers.js';
import { checkFiles, heldWhy } from '../agents/held.js';
import type { AgentsUi } from '../agents/types.js';
import type { WorkspaceState } from '../../types.js';

// A confirmation is planned from what the operator saw; between showing it and `y` an agent
// may start writing the file, or the file may change under it. Each dialog
// that touches a cell's file records the file's size and mtime when it is shown; at confirm
// time the file is looked at again, and any change — or a live writer — refuses, saying why
// (docs/decisions/live-writers-untouchable.md).
// A live writer is also one checkroom did not launch: a quiet process that
// holds the file open for writing changes neither size nor mtime, so /proc is asked too.

export interface Seen {
  unit: string;
  step: string;
  /** Workspace-relative. */
  path: string;
  /** null: there was no file. */
  bytes: number | null;
  mtimeMs: number | null;
}

const look = async (root: string, path: string): Promise<{ bytes: number | null; mtimeMs: number | null }> => {
  try {
    const st = await stat(join(root, path));
    return { bytes: st.size, mtimeMs: st.mtimeMs };
  } catch {
    return { bytes: null, mtimeMs: null };
  }
};

/** Size and mtime of each target's file now, to be compared at confirm time. */
export const seeFiles = async (root: string, targets: readonly { unit: string; step: string; path: string }[]): Promise<Seen[]> =>
  Promise.all(targets.map(async (t) => ({ unit: t.unit, step: t.step, path: t.path, ...(await look(root, t.path)) })));

/** seeFiles for a dialog that opens in the same keypress (a launch): one stat per file. */
export const seeFilesNow = (root: string, targets: readonly { unit: string; step: string; path: string }[]): Seen[] =>
  targets.map((t) => {
    try {
      const st = statSync(join(root, t.path));
      return { unit: t.unit, step: t.step, path: t.path, bytes: st.size, mtimeMs: st.mtimeMs };
    } catch {
      return { unit: t.unit, step: t.step, path: t.path, bytes: null, mtimeMs: null };
    }
  });

const size = (b: number | null): string => (b === null ? 'no file' : `${b} bytes`);

/** Why the confirmation must not run now, or null: a live writer, or a file that changed since it was shown. */
export async function recheck(s: { ws: WorkspaceState; agents: AgentsUi }, seen: readonly Seen[]): Promise<string | null> {
  const writers = liveWriters(s);
  for (const t of seen) {
    const w = writerOf(writers, t);
    if (w) return writingWhy(w, t);
  }
  const fresh = checkFiles(
    s,
    seen.map((t) => t.path),
  );
  for (const l of fresh.values()) if (l.live && l.kind === 'held') return heldWhy(l);
  for (const t of seen) {
    const now = await look(s.ws.root, t.path);
    if (now.bytes !== t.bytes || now.mtimeMs !== t.mtimeMs) {
      const how = now.bytes !== t.bytes ? `${size(t.bytes)} → ${size(now.bytes)}` : 'modified';
      return `${t.path} changed since the dialog was shown (${how}); look at it again`;
    }
  }
  for (const l of fresh.values()) if (l.live) return heldWhy(l);
  return null;
}
