import { CLAIM_WORD } from '../../text/glyphs.js';
import { CLAIM_GLYPH } from '../../checkpoint/glyphs.js';
import type { Claim, WorkspaceState } from '../../types.js';
import type { DecisionEvent, NewJournalEvent } from '../../run/journal/journal.js';
import type { CheckpointDiff } from '../views/checkpoint-diff.js';
import type { Seen } from '../keys/confirm-guard.js';
import { liveWriters, writerOf, writingWhy } from '../agents/live-writers.js';
import { heldWhy, uncheckedLines } from '../agents/held.js';
import type { Liveness } from '../../holders/liveness.js';
import type { RedoEntry } from '../store/select.js';
import { partialItems, type PartialItem } from '../store/select.js';
import { goneUpdate, selectedPartial } from '../store/selected.js';
import { said, type Ask, type Decision, type Planned } from '../store/kit.js';
import type { AppState, Pending, UndoGroup } from '../store/types.js';
import type { Move } from './actions.js';
import type { Why, WhyOf } from '../../reasons/why.js';
import { EN } from '../../reasons/en.js';

// The triage slice's decisions as pure functions (docs/architecture.md, A dialog): state and the facts the
// effects gathered (backup names, the files as seen) in, a message, a dialog or a state
// change out. No I/O, no get/set: store-triage.ts gathers and applies, triage-effects.ts
// does what a confirmation promised.

export type MovesPending = Extract<Pending, { type: 'moves' }>;
type Decided = Omit<DecisionEvent, 'v' | 'at' | 'type'>;

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The cell a workspace path is the output of, for the journal's decisions. */
export const cellOf = (ws: WorkspaceState, path: string): { unit?: string; step?: string } => {
  const c = ws.cells.find((x) => x.path === path);
  return c ? { unit: c.unit, step: c.step } : {};
};

/** The picked partial, or why there is none to act on; a live writer makes it untouchable. */
export function planPick(s: AppState): Planned<PartialItem> {
  const p = selectedPartial(s);
  if (!p) return said('nothing selected', 'warn');
  if ('gone' in p) return { change: goneUpdate(s, 'partials', p.gone) };
  const w = writerOf(liveWriters(s), p.item.file);
  if (w) return said(writingWhy(w, p.item.file), 'warn');
  return { go: p.item };
}

/**
 * What the disk and /proc say at decision time: the refusal for a live file
 * (held open for writing by any process, or changed within the quiet window), or null to go
 * on. Asked fresh for the file at hand, not from the view's `held`, which may be a second old
 * either way.
 */
export function planFresh(fresh: ReadonlyMap<string, Liveness>): Decision | null {
  for (const l of fresh.values()) if (l.live) return said(heldWhy(l), 'warn');
  return null;
}

/** A dialog's lines plus what could not be checked, if anything (other users' processes). */
export const noting = (a: Ask, fresh: ReadonlyMap<string, Liveness>): Ask => ({ ...a, lines: [...a.lines, ...uncheckedLines(fresh)] });

/** `b` and `d`: back the file up (and, for `d`, queue its step). */
export function moveAsk(item: PartialItem, redo: boolean, moves: Move[], seen: Seen[]): Ask {
  const { path, unit, step } = item.file;
  const lines = moves.map((m) => `${m.path} → ${m.backup}`);
  if (redo) lines.push(`queue ${unit} ${step} for relaunch (shown in the Plan view)`);
  const title = redo ? `Redo ${unit} ${step}: back up the file and queue the step` : `Back up ${path}`;
  return { title, lines, pending: { type: 'moves', moves, redo: redo ? [{ unit, step, path }] : [] }, seen };
}

export interface Conservative {
  targets: PartialItem[];
  /** How many were left alone because they are being written, in words, or ''. */
  left: string;
  /** How many that is (with the ones the disk shows live at decision time). */
  writing?: number;
}

/** `c`: every almost-certain partial without a live writer (those are left alone, and the message says so). */
export function planConservative(s: AppState): Planned<Conservative> {
  const writers = liveWriters(s);
  const all = partialItems(s.ws, s.filter, s.skipped).filter((i) => i.section === 'partial' && i.file.verdict === 'almost_certainly_partial');
  const targets = all.filter((i) => !writerOf(writers, i.file));
  const writing = all.length - targets.length;
  return leftAlone(targets, writing);
}

const leftAlone = (targets: PartialItem[], writing: number): Planned<Conservative> => {
  const left = writing ? `${writing} being written, left alone` : '';
  if (targets.length === 0) return said(`conservative strategy: no almost_certainly_partial file to back up${left ? ` (${left})` : ''}`, 'info');
  return { go: { targets, left, ...(writing ? { writing } : {}) } };
};

/** The conservative plan less the files the disk now says are live, or the message when none is left. */
export function freshConservative(c: Conservative, fresh: ReadonlyMap<string, Liveness>): Planned<Conservative> {
  const targets = c.targets.filter((t) => !fresh.get(t.file.path)?.live);
  return targets.length === c.targets.length ? { go: c } : leftAlone(targets, (c.writing ?? 0) + c.targets.length - targets.length);
}

export function conservativeAsk({ targets, left }: Conservative, moves: Move[], seen: Seen[]): Ask {
  const lines = [
    ...moves.map((m) => `${m.path} → ${m.backup}`),
    `queue ${plural(targets.length, 'step')} for relaunch (shown in the Plan view)`,
    ...(left ? [`${left} until it stops`] : []),
  ];
  const redo = targets.map((t) => ({ unit: t.file.unit, step: t.file.step, path: t.file.path }));
  return {
    title: `Conservative strategy: back up ${moves.length} almost-certain partial${moves.length === 1 ? '' : 's'} and redo`,
    lines,
    pending: { type: 'moves', moves, redo },
    seen,
  };
}

/** `m`: the marker to append, or why the file cannot be kept. */
export function planKeep(s: AppState, item: PartialItem): Planned<string> {
  if (item.section === 'suspect') return said(`${item.file.path} already ends with its marker; back it up or redo it instead`, 'warn');
  const step = s.ws.pipeline.steps.find((st) => st.id === item.file.step);
  if (!step?.marker) return said(`step ${item.file.step} has no marker to append`, 'warn');
  return { go: step.marker };
}

/** The journal's cut of a file's writer, if its verdict rests on one. */
const writerCut = (w: Why | undefined): WhyOf<'writer_cut'> | null =>
  !w ? null : w.k === 'writer_cut' ? w : w.k === 'marker_not_last' || w.k === 'at_path' ? writerCut(w.then) : null;

export function keepAsk(item: PartialItem, marker: string, backup: string, seen: Seen[]): Ask {
  const path = item.file.path;
  const lines = [`${path} → ${backup} (a copy; the file stays)`, `${path}: append "<!-- ${marker} -->" as the last line`];
  // A file its writer was cut off in is not offered as complete without
  // naming the event; keeping it is the operator's call, made knowingly.
  const cut = writerCut(item.file.why);
  const warn = cut
    ? [`⚠ its writer was ${EN.cutEvent[cut.event]} at ${cut.time} (attempt ${cut.attempt}, journal) and the file has not changed since: it was cut off, not finished, however its end reads; keep it only if you read it whole`]
    : [];
  return { title: `Keep ${path}: mark it complete${cut ? ` although its writer was ${EN.cutEvent[cut.event]}` : ''}`, lines: [...warn, ...lines], pending: { type: 'keep', move: { path, backup }, marker }, seen };
}

/** `u`: the last backup group of the session, or that there is none. */
export const planUndo = (s: AppState): Planned<UndoGroup> => {
  const group = s.undo.at(-1);
  return group ? { go: group } : said('nothing to undo: no backup was made in this session', 'info');
};

/** The files an undo brings back, for the confirm guard: one reappeared or written since (a relaunched redo) makes it refuse. */
export const undoTargets = (ws: WorkspaceState, group: UndoGroup): { unit: string; step: string; path: string }[] =>
  group.moves.map((m) => ({ unit: '', step: '', ...cellOf(ws, m.path), path: m.path }));

export const undoAsk = (group: UndoGroup, seen: Seen[]): Ask => ({
  title: `Undo: ${group.label}`,
  lines: [...group.moves].reverse().map((m) => `${m.backup} → ${m.path}`),
  pending: { type: 'undo', group },
  seen,
});

const claimGlyph = (c: Claim | null, ascii: boolean): string => (c === null ? '(none)' : ascii ? CLAIM_WORD[c] : CLAIM_GLYPH[c]);

const CELLS_NAMED = 4;

/** `w`: checkpoint.md rewritten from the disk: which cells change, then the whole line diff. */
export function checkpointAsk(diff: CheckpointDiff, ascii: boolean): Ask {
  // rewriteCheckpoint stamps its backup copy when it writes, so the name is given as a pattern.
  const backup = diff.exists ? `${diff.file}.bak.<time of the write>` : null;
  const n = diff.changes.length;
  // The cells in brief (the diff below shows them in place); a long list would push the diff off the screen.
  const cells = diff.changes.slice(0, CELLS_NAMED).map((c) => `${c.key} ${claimGlyph(c.before, ascii)}${ascii ? '->' : '→'}${claimGlyph(c.after, ascii)}`);
  if (n > CELLS_NAMED) cells.push(`${n - CELLS_NAMED} more`);
  const lines = [
    backup ? `${diff.file} → ${backup} (a copy of the old file)` : `${diff.file} is created`,
    `${diff.file}: rewritten from the disk; ${plural(n, 'cell')} change${n === 1 ? 's' : ''}${n ? `: ${cells.join(', ')}` : ''}`,
    diff.lines.length ? 'every line that changes (- now, + after), the rest of the file stays as it is:' : 'no line of the file changes',
    ...diff.lines.map((l) => `  ${l}`),
  ];
  return { title: `Rewrite ${diff.file}: ${plural(n, 'cell')} change`, lines, pending: { type: 'checkpoint', diff, backup } };
}

export interface MovesOutcome {
  /** The operator's decisions, for the journal (RESUME.md's key decisions). */
  decisions: Decided[];
  /** The redo queue and undo stack, journalled so a restart keeps them. */
  events: NewJournalEvent[];
  group: UndoGroup;
  queued: RedoEntry[];
}

/** What the moves that were done mean for the journal and the session. */
export function movesOutcome(ws: WorkspaceState, p: MovesPending, done: Move[], at: Date, queuedAt: number): MovesOutcome {
  const decisions = done.map((m): Decided => {
    const redo = p.redo.find((r) => r.path === m.path);
    return {
      kind: redo ? 'redo' : 'backup',
      ...cellOf(ws, m.path),
      path: m.path,
      backupPath: m.backup,
      note: redo ? 'backed up and queued for relaunch' : 'backed up by the operator',
    };
  });
  const label = done.length === 1 ? `backup of ${done[0].path}` : `${done.length} backups`;
  const queued = p.redo.map((r) => ({ ...r, backup: done.find((m) => m.path === r.path)?.backup ?? '', queuedAt }));
  const group = { id: `${at.getTime()}:${done.map((m) => m.backup).join(',')}`, label, moves: done };
  const events: NewJournalEvent[] = [
    ...queued.map((q): NewJournalEvent => ({ type: 'redo_queued', at: queuedAt, unit: q.unit, step: q.step, path: q.path, backup: q.backup })),
    ...(done.length ? [{ type: 'undo_pushed', at: queuedAt, id: group.id, label, moves: done } satisfies NewJournalEvent] : []),
  ];
  return { decisions, events, group, queued };
}

/** The session after the moves: the group on the undo stack, the redo entries queued (replacing older ones of the same cell). */
export function afterMoves(s: Pick<AppState, 'undo' | 'redoQueue'>, { group, queued }: MovesOutcome): Partial<AppState> {
  const done = group.moves;
  // Short enough for 80 columns: the backup name is the path plus a suffix.
  const what = done.length === 1 ? `${done[0].path} → …${done[0].backup.slice(done[0].path.length)}` : `${done.length} files backed up`;
  return {
    undo: [...s.undo, group],
    redoQueue: [...s.redoQueue.filter((q) => !queued.some((r) => r.unit === q.unit && r.step === q.step)), ...queued],
    message: { text: `${what}${queued.length ? `, ${queued.length} queued` : ''} (u undoes)`, tone: 'ok' },
  };
}

/** The session after an undo: the group off the stack, its files off the redo queue. */
export const afterUndo = (s: Pick<AppState, 'undo' | 'redoQueue'>, group: UndoGroup, restored: string[]): Partial<AppState> => ({
  undo: s.undo.filter((g) => g !== group),
  redoQueue: s.redoQueue.filter((q) => !restored.includes(q.path)),
  message: { text: `restored ${restored.join(', ')}`, tone: 'ok' },
});
