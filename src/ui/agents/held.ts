import { checkLive, DEFAULT_QUIET_WINDOW_MS, liveOnly, type LiveFile, type Liveness } from '../../holders/liveness.js';
import { HANDS_OFF, liveWhy, uncheckedNote } from '../../holders/words.js';
import type { PipelineDef, WorkspaceState } from '../../types.js';
import type { AgentsUi } from './types.js';
import { liveWriters } from './live-writers.js';

// The control room's view of writers it did not launch
// (docs/decisions/live-writers-untouchable.md). `held` in the
// state is the last /proc pass over the files the Partials view lists (one pass for all of
// them, redone when the workspace changes, at most once a second: held-feed.ts); the views
// draw from it. It holds the files a process has open for writing only: a file that merely
// changed within the quiet window keeps its verdict on screen and is refused when a key
// asks. Every decision asks the disk again (`checkFiles`) for the files at hand only, and
// so does `y`.

export interface Held {
  /** Workspace-relative path → who holds it open for writing; only such files are here. */
  byPath: ReadonlyMap<string, HeldFile>;
  /** Processes whose descriptors could not be read (other users', when not root). */
  unchecked: number;
}

export type HeldFile = Extract<LiveFile, { kind: 'held' }>;

const isHeld = (l: Liveness): l is HeldFile => l.live && l.kind === 'held';

export const noneHeld = (): Held => ({ byPath: new Map(), unchecked: 0 });

export const quietOf = (pipeline: PipelineDef): number => pipeline.quietWindowMs ?? DEFAULT_QUIET_WINDOW_MS;

type S = { ws: WorkspaceState; agents: AgentsUi };

/** The process groups of the runs checkroom knows: a holder in one was launched by checkroom. */
const ourGroups = (s: S): Set<number> => new Set(liveWriters(s).flatMap((w) => (w.pid !== null ? [w.pid] : [])));

/** Ask the disk and /proc now, for these workspace paths only (one /proc pass). */
export const checkFiles = (s: S, paths: readonly string[]): Map<string, Liveness> => checkLive(s.ws.root, paths, { quietMs: quietOf(s.ws.pipeline), ours: ourGroups(s) });

/** The files the Partials view lists: what `held` covers. */
export const heldTargets = (s: S): string[] => [...s.ws.partials, ...s.ws.suspects].map((p) => p.path);

export function heldOf(m: ReadonlyMap<string, Liveness>): Held {
  const live = liveOnly(m).filter(isHeld);
  const unchecked = m.size ? Math.max(...[...m.values()].map((l) => l.unchecked)) : 0;
  return { byPath: new Map(live.map((l) => [l.path, l])), unchecked };
}

/** `held` with what a decision just asked about these paths: the view agrees with the refusal (or the go) it sees. */
export function mergeHeld(h: Held, fresh: ReadonlyMap<string, Liveness>): Held {
  const byPath = new Map(h.byPath);
  for (const l of fresh.values()) {
    if (isHeld(l)) byPath.set(l.path, l);
    else byPath.delete(l.path);
  }
  const same = byPath.size === h.byPath.size && [...byPath].every(([k, v]) => h.byPath.get(k) === v);
  return same ? h : { byPath, unchecked: h.unchecked };
}

/** Is any of these files live now? Asked fresh at a decision; the view's `held` learns the answer too. */
export const liveNow =
  (get: () => S & { held: Held }, set: (p: { held: Held }) => void) =>
  (paths: readonly string[]): Map<string, Liveness> => {
    const fresh = checkFiles(get(), paths);
    const held = mergeHeld(get().held, fresh);
    if (held !== get().held) set({ held });
    return fresh;
  };

/** Why nothing destructive is done to a live file (raw text: a command name is the process's). */
export const heldWhy = (l: LiveFile): string => `${liveWhy(l)}: ${HANDS_OFF}`;

/** The dialog line that says what could not be checked, if anything. */
export const uncheckedLines = (m: ReadonlyMap<string, Liveness>): string[] => {
  const n = Math.max(0, ...[...m.values()].map((l) => l.unchecked));
  return n ? [`note: ${uncheckedNote(n)}; a writer of theirs would not show here`] : [];
};
