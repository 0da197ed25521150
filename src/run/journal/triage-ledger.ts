import type { JournalEvent } from './journal.js';

// The operator's triage state as a fold over the journal: the redo queue,
// the skipped list and the undo stack. Pure: a step returns the state it was given when the
// event changes nothing, and a new object (never a changed one) when it does, so ledgers
// handed out earlier stay as they were (ledger-fold.ts).

export interface QueuedRedo {
  unit: string;
  step: string;
  path: string;
  backup: string;
  /** Epoch ms of the redo_queued event. */
  queuedAt: number;
}

export interface UndoRecord {
  id: string;
  label: string;
  moves: { path: string; backup: string }[];
  /** A redo from here (docs/redo.md): its undo restores every backup and unqueues these cells. */
  redo?: { cells: { unit: string; step: string; path: string; claim: string | null }[]; from?: { unit: string; step: string } };
}

/** A redo's changed agent or prompt, for its cell's next attempt only (docs/redo.md, Fork from here). */
export interface CellOverride {
  agent?: string;
  prompt?: string;
  /** The redo that set it. */
  id: string;
}

export interface TriageLedger {
  redoQueue: QueuedRedo[];
  skipped: string[];
  /** Oldest first; `u` undoes the last. */
  undo: UndoRecord[];
  /** By cellKey: dropped when the cell is launched, or its redo undone. */
  overrides: Record<string, CellOverride>;
}

/** Undo groups kept: enough for any session's backups; a journal of years stays bounded. */
export const MAX_UNDO = 100;

export const emptyTriage = (): TriageLedger => ({ redoQueue: [], skipped: [], undo: [], overrides: {} });

const sameCell = (a: { unit: string; step: string }, b: { unit: string; step: string }): boolean => a.unit === b.unit && a.step === b.step;

export function triageStep(t: TriageLedger, e: JournalEvent): TriageLedger {
  switch (e.type) {
    case 'redo_queued':
      return { ...t, redoQueue: [...t.redoQueue.filter((q) => !sameCell(q, e)), { unit: e.unit, step: e.step, path: e.path, backup: e.backup, queuedAt: e.at }] };
    case 'launch': {
      // Launched (by the operator or autopilot): no longer waiting in the queue; an override served this attempt.
      const key = `${e.unit}/${e.step}`;
      const queued = t.redoQueue.some((q) => sameCell(q, e));
      if (!queued && !(key in t.overrides)) return t;
      const { [key]: _used, ...overrides } = t.overrides;
      return { ...t, redoQueue: queued ? t.redoQueue.filter((q) => !sameCell(q, e)) : t.redoQueue, overrides };
    }
    case 'redo_applied':
      return redoApplied(t, e);
    case 'redo_undone': {
      const group = t.undo.find((g) => g.id === e.id);
      const cells = group?.redo?.cells ?? [];
      return {
        ...t,
        undo: t.undo.filter((g) => g.id !== e.id),
        redoQueue: t.redoQueue.filter((q) => !cells.some((c) => sameCell(c, q))),
        overrides: Object.fromEntries(Object.entries(t.overrides).filter(([, o]) => o.id !== e.id)),
      };
    }
    case 'skip':
      if (e.on === t.skipped.includes(e.path)) return t;
      return { ...t, skipped: e.on ? [...t.skipped, e.path] : t.skipped.filter((p) => p !== e.path) };
    case 'undo_pushed':
      return { ...t, undo: [...t.undo.filter((g) => g.id !== e.id), { id: e.id, label: e.label, moves: e.moves.map((m) => ({ path: m.path, backup: m.backup })) }].slice(-MAX_UNDO) };
    case 'undo_popped': {
      const group = t.undo.find((g) => g.id === e.id);
      if (!group) return t;
      // Its files are back under their names: a redo queued for them is void.
      const restored = new Set(group.moves.map((m) => m.path));
      return { ...t, undo: t.undo.filter((g) => g !== group), redoQueue: t.redoQueue.filter((q) => !restored.has(q.path)) };
    }
    default:
      return t;
  }
}

/** One redo: its cells queued in its order, one undo group, the override on each cell. */
function redoApplied(t: TriageLedger, e: Extract<JournalEvent, { type: 'redo_applied' }>): TriageLedger {
  const backupOf = new Map(e.moves.map((m) => [m.path, m.backup]));
  const queued = e.cells.map((c) => ({ unit: c.unit, step: c.step, path: c.path, backup: backupOf.get(c.path) ?? '', queuedAt: e.at }));
  const fork = e.agent !== undefined || e.prompt !== undefined;
  const overrides = { ...t.overrides };
  if (fork) for (const c of e.cells) overrides[`${c.unit}/${c.step}`] = { ...(e.agent !== undefined ? { agent: e.agent } : {}), ...(e.prompt !== undefined ? { prompt: e.prompt } : {}), id: e.id };
  const group: UndoRecord = {
    id: e.id,
    label: `redo from ${e.unit} ${e.step} (${e.cells.length} cell${e.cells.length === 1 ? '' : 's'})`,
    moves: e.moves.map((m) => ({ path: m.path, backup: m.backup })),
    redo: { cells: e.cells.map((c) => ({ unit: c.unit, step: c.step, path: c.path, claim: c.claim })), from: { unit: e.unit, step: e.step } },
  };
  return {
    ...t,
    redoQueue: [...t.redoQueue.filter((q) => !e.cells.some((c) => sameCell(c, q))), ...queued],
    undo: [...t.undo.filter((g) => g.id !== e.id), group].slice(-MAX_UNDO),
    overrides,
  };
}
