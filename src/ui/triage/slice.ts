import type { DecisionEvent, NewJournalEvent } from '../../run/journal/journal.js';
import { checkpointDiff } from '../views/checkpoint-diff.js';
import { seeFiles } from '../keys/confirm-guard.js';
import { rescanner, storeKit, type DiskDeps } from '../store/kit.js';
import { planMoves, predictBackup } from './actions.js';
import { triageEffect, type TriageIo, type TriagePending } from './effects.js';
import { checkpointAsk, conservativeAsk, freshConservative, keepAsk, moveAsk, noting, planConservative, planFresh, planKeep, planPick, planUndo, undoAsk, undoTargets } from './planners.js';
import { liveNow } from '../agents/held.js';
import { markedRequest } from '../marks/request.js';
import { heldRedo, planRedo, redoDialog } from './redo.js';

// The store's disk actions: each request plans the change (exact file names), opens a
// confirmation, and only `confirm` touches the disk (k9s: destructive keys confirm). What
// each request decides is a pure planner (triage-planners.ts); what a confirmation does is a row
// of the effects table (triage-effects.ts). This file only gathers the facts a planner needs
// from the disk (backup names, the files as seen) and applies the result.

interface Deps extends DiskDeps {
  now: () => Date;
  /** Records the operator's decision in the journal (RESUME.md's key decisions, an agent's {backup}); absent without a supervisor. */
  decide?: (e: Omit<DecisionEvent, 'v' | 'at' | 'type'>) => Promise<void>;
  /** Appends a triage event (redo queue, undo stack) so a restart keeps them; absent without a supervisor. */
  journal?: (e: NewJournalEvent) => Promise<void>;
}

const hhmmss = (d: Date): string => d.toTimeString().slice(0, 8);

/** Each event in order; a journal that cannot be written leaves the disk change standing. */
const each =
  <E>(write: ((e: E) => Promise<void>) | undefined) =>
  async (events: E[]): Promise<void> => {
    if (!write) return;
    for (const e of events) await write(e).catch(() => undefined);
  };

export function createTriage({ set, get, live, now, track, decide, journal }: Deps) {
  const { say, act, apply, settle } = storeKit({ set, get, track });
  const rescan = rescanner({ get, live });
  const io: TriageIo = { get, set, now, say, rescan, record: each(decide), keep: each(journal), ...(journal ? { journal } : {}) };
  const root = (): string => get().ws.root;
  /** Plan with `busy` held, then open the dialog the planner made (dated `at`, as its backup names). */
  const planning = (at: Date, plan: () => Promise<Parameters<typeof apply>[0]>): void => act('planning', async () => apply(await plan(), at));
  const liveFiles = liveNow(get, set);

  return {
    refresh: (): void =>
      act('rescanning', async () => {
        await rescan();
        say(`rescanned at ${hhmmss(new Date())}`, 'ok');
      }),

    requestMove: (redo: boolean): void => {
      const at = now();
      const item = settle(planPick(get()), at);
      if (!item) return;
      planning(at, async () => {
        // Asked again now, for this file only: the view's answer may be a second old.
        const fresh = liveFiles([item.file.path]);
        const stop = planFresh(fresh);
        if (stop) return stop;
        const seen = await seeFiles(root(), [item.file]);
        return { ask: noting(moveAsk(item, redo, await planMoves(root(), [item.file.path], at), seen), fresh) };
      });
    },

    requestConservative: (): void => {
      const at = now();
      const planned = settle(planConservative(get()), at);
      if (!planned) return;
      planning(at, async () => {
        const fresh = liveFiles(planned.targets.map((t) => t.file.path));
        const f = freshConservative(planned, fresh);
        if (!('go' in f)) return f;
        const c = f.go;
        const seen = await seeFiles(root(), c.targets.map((t) => t.file));
        const moves = await planMoves(root(), c.targets.map((t) => t.file.path), at);
        return { ask: noting(conservativeAsk(c, moves, seen), fresh) };
      });
    },

    requestKeep: (): void => {
      const at = now();
      const item = settle(planPick(get()), at);
      const marker = item && settle(planKeep(get(), item), at);
      if (!item || !marker) return;
      planning(at, async () => {
        const fresh = liveFiles([item.file.path]);
        const stop = planFresh(fresh);
        if (stop) return stop;
        const seen = await seeFiles(root(), [item.file]);
        return { ask: noting(keepAsk(item, marker, await predictBackup(root(), item.file.path, at), seen), fresh) };
      });
    },

    /** b / d / m / s with marks (docs/marks.md): one preview of every marked file, the refused ones with why. */
    requestMarked: markedRequest({ get, now, settle, planning, liveFiles, root }),

    requestUndo: (): void => {
      const at = now();
      const group = settle(planUndo(get()), at);
      if (!group) return;
      planning(at, async () => ({ ask: undoAsk(group, await seeFiles(root(), undoTargets(get().ws, group))) }));
    },

    /** D or :redo (docs/redo.md): the preview of redo from here, or why not. */
    requestRedo: (args: string): void => {
      const at = now();
      const req = settle(planRedo(get(), args), at);
      if (req) planning(at, () => redoDialog(get(), req));
    },

    /** A redo asked through the socket (`checkroom redo --yes`, redo-remote.ts), `busy` held as D's `y` holds it. */
    redoNow: heldRedo(io),

    requestCheckpoint: (): void => {
      const at = now();
      act('comparing checkpoint.md with the disk', async () => apply({ ask: checkpointAsk(await checkpointDiff(root()), get().ascii) }, at));
    },

    confirm: (): void => {
      const d = get().dialog;
      if (!d) return;
      set({ dialog: null });
      const p = d.pending as TriagePending;
      const row = triageEffect(p);
      if (row) act(row.busy, () => row.run(io, p, new Date(d.at)));
    },
  };
}

export type TriageActions = ReturnType<typeof createTriage>;
