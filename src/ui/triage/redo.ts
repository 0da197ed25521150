import { loadConfig } from '../../pipeline/config/config.js';
import { appendJournal, type JournalEvent, type NewJournalEvent } from '../../run/journal/journal.js';
import { triageStep } from '../../run/journal/triage-ledger.js';
import { applyRedo, undoRedo } from '../../redo/apply.js';
import { diskPorts } from '../../redo/ports.js';
import { checkOverride, parseRedoArgs } from '../../redo/override.js';
import { gatherRedo } from '../../redo/gather.js';
import { redoLines, redoTitle } from '../../redo/words.js';
import { RedoError, type RedoMove, type RedoOverride, type RedoPreview } from '../../redo/types.js';
import { seeFiles, type Seen } from '../keys/confirm-guard.js';
import { pickedCell } from '../pager/slice.js';
import { said, type Decision, type Planned } from '../store/kit.js';
import type { AppState, Pending, UndoGroup } from '../store/types.js';
import type { TriageIo } from './effects.js';
import type { Ledger } from '../../run/journal/ledger.js';

// D and `:redo [unit/step] [agent=..] [prompt=..]` in the control room (docs/redo.md): the
// planners (pure) and the effects of the confirmation. The domain decides (src/redo/); this
// file picks the cell, words the dialog and folds the one journal record into the session
// exactly as the ledger folds it on a restart.

export type RedoPending = Extract<Pending, { type: 'redo' }>;

export interface RedoRequest {
  cell: { unit: string; step: string };
  override: RedoOverride;
}

/** The cell from the words typed, else the one under the cursor; or why there is none. */
export function planRedo(s: AppState, args: string): Planned<RedoRequest> {
  let parsed: ReturnType<typeof parseRedoArgs>;
  try {
    parsed = parseRedoArgs(args);
  } catch (err) {
    return said((err as Error).message, 'warn');
  }
  const picked = parsed.cell ?? pickedCell(s);
  if ('why' in picked) return said('no cell selected here: pick a cell (Progress, Plan, Health or Partials) and press D, or type :redo unit/step', 'warn');
  if (!s.ws.cells.some((c) => c.unit === picked.unit && c.step === picked.step)) return said(`no cell ${picked.unit} ${picked.step} in this workspace`, 'warn');
  return { go: { cell: picked, override: parsed.override } };
}

/** The preview as a dialog, or its refusal. */
export function redoAsk(p: RedoPreview, seen: Seen[]): Decision {
  if (p.refusal) return said(p.refusal, 'warn');
  return { ask: { title: redoTitle(p), lines: redoLines(p), pending: { type: 'redo', preview: p }, seen } };
}

/** The fork checked, the facts gathered, the preview as a dialog (or why not). */
export async function redoDialog(s: AppState, req: RedoRequest): Promise<Decision> {
  let override: RedoOverride | null;
  try {
    override = await checkOverride(s.ws.root, await loadConfig(s.ws.root), req.override);
  } catch (err) {
    if (err instanceof RedoError) return said(err.message, 'warn');
    throw err;
  }
  const p = await gatherRedo(s.ws, s.agents.snap?.ledger ?? { liveRuns: [] }, req.cell, override);
  return redoAsk(p, await seeFiles(s.ws.root, redoTargets(p)));
}

/** The files the dialog shows, once each, for the confirm guard. */
export const redoTargets = (p: RedoPreview): { unit: string; step: string; path: string }[] => {
  const seen = new Set<string>();
  return p.cells.filter((c) => c.file && !seen.has(c.path) && seen.add(c.path)).map((c) => ({ unit: c.unit, step: c.step, path: c.path }));
};

/** The session after one redo record: the store's queue and undo stack as the ledger folds them. */
export const foldRedo = (s: Pick<AppState, 'redoQueue' | 'skipped' | 'undo'>, e: NewJournalEvent): Pick<AppState, 'redoQueue' | 'undo'> => {
  const t = triageStep({ redoQueue: s.redoQueue, skipped: s.skipped, undo: s.undo, overrides: {} }, { ...e, v: 1 } as JournalEvent);
  return { redoQueue: t.redoQueue, undo: t.undo as UndoGroup[] };
};

/** The ports over the session's journal: the record is kept for the restart, and folded into the store now. */
const portsOf = async (io: TriageIo, journal: ((e: NewJournalEvent) => Promise<void>) | undefined) => {
  const root = io.get().ws.root;
  const ports = diskPorts(root, await loadConfig(root), journal ?? ((e) => appendJournal(root, e)));
  const folded: NewJournalEvent[] = [];
  return {
    folded,
    ports: {
      ...ports,
      now: () => io.now().getTime(),
      append: async (e: NewJournalEvent) => {
        folded.push(e);
        await ports.append(e);
      },
    },
  };
};

/** Back up, journal one record through the session's journal, fold it into the store (its queue is autopilot's order): D's `y` and a redo from another terminal. */
async function applyInRoom(io: TriageIo, preview: RedoPreview, journal: ((e: NewJournalEvent) => Promise<void>) | undefined): Promise<{ id: string; moves: RedoMove[] }> {
  const { ports, folded } = await portsOf(io, journal);
  const r = await applyRedo(io.get().ws.root, preview, ports);
  io.set((s) => folded.reduce((st, e) => ({ ...st, ...foldRedo(st, e) }), s));
  return r;
}

/** What a redo did, in words: the message line, and the answer to `checkroom redo --yes`. */
export const redoDoneWords = (p: RedoPreview, moves: number): string => `redo from ${p.origin.unit} ${p.origin.step}: ${moves} backed up, ${p.cells.length} queued in the Plan view (u undoes it)`;

export async function runRedo(io: TriageIo, p: RedoPending, journal?: (e: NewJournalEvent) => Promise<void>): Promise<void> {
  try {
    const r = await applyInRoom(io, p.preview, journal);
    io.set({ message: { text: redoDoneWords(p.preview, r.moves.length), tone: 'ok' } });
  } catch (err) {
    if (!(err instanceof RedoError)) throw err;
    io.set({ message: { text: err.message, tone: 'warn' } });
  }
  await io.rescan();
}

/**
 * `checkroom redo --yes` from another terminal while this room drives (docs/redo.md): the
 * cell checked, the fork checked, the facts gathered and the redo applied as D and `y` do,
 * without the dialog (the asker confirmed with --yes). A refusal is thrown: nothing touched.
 */
export async function redoNow(io: TriageIo, req: RedoRequest, ledger?: Pick<Ledger, 'liveRuns'>): Promise<{ preview: RedoPreview; applied: { id: string; moves: RedoMove[] } }> {
  const s = io.get();
  const { unit, step } = req.cell;
  if (!s.ws.cells.some((c) => c.unit === unit && c.step === step)) throw new RedoError(`no cell ${unit} ${step} in this workspace; nothing was touched`);
  const override = await checkOverride(s.ws.root, await loadConfig(s.ws.root), req.override);
  // The supervisor's ledger when the asker has it: the runs in flight now, not at the last flush.
  const preview = await gatherRedo(s.ws, ledger ?? s.agents.snap?.ledger ?? { liveRuns: [] }, req.cell, override);
  if (preview.refusal) throw new RedoError(preview.refusal);
  try {
    return { preview, applied: await applyInRoom(io, preview, io.journal) };
  } finally {
    await io.rescan();
  }
}

/** redoNow with `busy` held, as D's `y` holds it; refused while another disk action is in flight. */
export const heldRedo =
  (io: TriageIo) =>
  async (req: RedoRequest, ledger?: Pick<Ledger, 'liveRuns'>): ReturnType<typeof redoNow> => {
    const busy = io.get().busy;
    if (busy) throw new RedoError(`this control room is ${busy}: try again in a moment; nothing was touched`);
    io.set({ busy: 'backing up for the redo' });
    try {
      return await redoNow(io, req, ledger);
    } finally {
      io.set({ busy: null });
    }
  };

export async function runUndoRedo(io: TriageIo, group: UndoGroup, journal?: (e: NewJournalEvent) => Promise<void>): Promise<void> {
  const { ports, folded } = await portsOf(io, journal);
  try {
    const r = await undoRedo(io.get().ws.root, group, ports);
    io.set((s) => ({ ...folded.reduce((st, e) => ({ ...st, ...foldRedo(st, e) }), s), message: { text: `undone: ${group.label}; ${r.restored.length} restored (what was there is backed up)`, tone: 'ok' } }));
  } catch (err) {
    if (!(err instanceof RedoError)) throw err;
    io.set({ message: { text: err.message, tone: 'warn' } });
  }
  await io.rescan();
}
