import type { Liveness } from '../../holders/liveness.js';
import { liveWriters, writerOf, writingWhy } from '../agents/live-writers.js';
import { heldWhy } from '../agents/held.js';
import { partialItems, type PartialItem } from '../store/select.js';
import { partialKey } from '../keys/item-keys.js';
import { said, type Ask, type Decision, type Planned } from '../store/kit.js';
import type { AppState } from '../store/types.js';
import type { Seen } from '../keys/confirm-guard.js';
import type { Move } from '../triage/actions.js';
import { planKeep } from '../triage/planners.js';
import { refusalWords, refusedLines, type Refused } from './words.js';

// b / d / m / s on the marked half-products (docs/marks.md): one preview that lists
// every marked file and what will happen to it, or why it is refused. Each refusal is the
// single action's own (a live writer: live-writers.ts; a file held open or changed just
// now: held.ts; no marker to append: planKeep), asked per file, never looped around.

export type PartialsBulk = 'backup' | 'redo' | 'keep' | 'skip';

export interface MarkedPartials {
  kind: PartialsBulk;
  go: PartialItem[];
  /** For `keep`: each file's marker, by path. */
  markers: Readonly<Record<string, string>>;
  refused: Refused[];
}

const VERB: Record<PartialsBulk, string> = { backup: 'back up', redo: 'redo', keep: 'keep', skip: 'skip' };

/** The marked partials split into those the action may touch and those it refuses (with why), before the disk is asked. */
export function planMarkedPartials(s: AppState, kind: PartialsBulk): Planned<MarkedPartials> {
  const marked = new Set(s.marks.partials);
  const items = partialItems(s.ws, '', s.skipped).filter((i) => marked.has(partialKey(i)));
  if (items.length === 0) return said('nothing marked is in the list any more', 'warn');
  const writers = liveWriters(s);
  const go: PartialItem[] = [];
  const refused: Refused[] = [];
  const markers: Record<string, string> = {};
  for (const item of items) {
    // Skipping only hides a row: a live file may be skipped.
    const w = kind === 'skip' ? null : writerOf(writers, item.file);
    if (w) {
      refused.push({ what: item.file.path, why: writingWhy(w, item.file) });
      continue;
    }
    if (kind === 'keep') {
      const k = planKeep(s, item);
      if (!('go' in k)) {
        refused.push({ what: item.file.path, why: 'say' in k ? k.say : 'not kept' });
        continue;
      }
      markers[item.file.path] = k.go;
    }
    go.push(item);
  }
  return { go: { kind, go, markers, refused } };
}

/** The plan less the files the disk and /proc now say are live (held open for writing, or changed within the quiet window). */
export function freshMarked(p: MarkedPartials, fresh: ReadonlyMap<string, Liveness>): MarkedPartials {
  if (p.kind === 'skip') return p;
  const live = p.go.filter((i) => fresh.get(i.file.path)?.live);
  if (live.length === 0) return p;
  const refused = [...p.refused, ...live.map((i) => ({ what: i.file.path, why: heldWhy(fresh.get(i.file.path) as Extract<Liveness, { live: true }>) }))];
  return { ...p, go: p.go.filter((i) => !live.includes(i)), refused };
}

/** Every marked file refused: say so, nothing opens. */
export const allRefused = (p: MarkedPartials): Decision =>
  said(`${VERB[p.kind]}: none of the ${p.refused.length} marked file${p.refused.length === 1 ? '' : 's'} can be touched: ${p.refused.map(refusalWords).join('; ')}`, 'warn');

/** b and d on marks: one `moves` dialog (one undo group), the refused files listed under it. */
export function markedMovesAsk(p: MarkedPartials, moves: Move[], seen: Seen[]): Ask {
  const redo = p.kind === 'redo';
  // The refusals first: a long preview is cut at the terminal's height, and they must be read.
  const lines = [...refusedLines(p.refused), ...moves.map((m) => `${m.path} → ${m.backup}${redo ? ', then queued for relaunch' : ''}`)];
  const n = moves.length;
  const title = `${redo ? 'Redo' : 'Back up'} ${n} marked file${n === 1 ? '' : 's'}${p.refused.length ? ` (${p.refused.length} refused)` : ''}`;
  const queue = redo ? p.go.map((i) => ({ unit: i.file.unit, step: i.file.step, path: i.file.path })) : [];
  return { title, lines, pending: { type: 'moves', moves, redo: queue, refused: p.refused }, seen };
}

/** m on marks: each file copied to a backup, then its marker appended. */
export function markedKeepAsk(p: MarkedPartials, backups: readonly string[], seen: Seen[]): Ask {
  const keeps = p.go.map((i, n) => ({ move: { path: i.file.path, backup: backups[n] }, marker: p.markers[i.file.path] }));
  const lines = [...refusedLines(p.refused), ...keeps.map((k) => `${k.move.path} → ${k.move.backup} (a copy), then "<!-- ${k.marker} -->" appended`)];
  const n = keeps.length;
  return { title: `Keep ${n} marked file${n === 1 ? '' : 's'}: mark ${n === 1 ? 'it' : 'them'} complete${p.refused.length ? ` (${p.refused.length} refused)` : ''}`, lines, pending: { type: 'keeps', keeps, refused: p.refused }, seen };
}

/** s on marks: hide them from the list (journalled, as one skip is). */
export function markedSkipAsk(p: MarkedPartials): Ask {
  const n = p.go.length;
  return {
    title: `Skip ${n} marked file${n === 1 ? '' : 's'}`,
    lines: [...p.go.map((i) => `${i.file.path}: hidden from the list (:unskip shows it again)`)],
    pending: { type: 'skips', paths: p.go.map((i) => i.file.path) },
  };
}
