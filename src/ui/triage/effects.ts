import { rewriteCheckpoint } from '../../checkpoint/rewrite.js';
import type { DecisionEvent, NewJournalEvent } from '../../run/journal/journal.js';
import type { AppState, Pending } from '../store/types.js';
import type { SetState } from '../store/kit.js';
import { runKeep, runMoves, undoMoves } from './actions.js';
import { afterMoves, afterUndo, cellOf, movesOutcome } from './planners.js';
import { clampCursors } from '../views/nav.js';
import { resultWords, type Refused } from '../marks/words.js';

// What a triage confirmation does on disk, one row per kind of dialog: the
// I/O only; what it means for the session comes from the pure planners of triage-planners.ts.
// After a change the workspace is rescanned, so the views show what the disk now says.

export type TriagePending = Extract<Pending, { type: 'moves' | 'keep' | 'keeps' | 'skips' | 'undo' | 'checkpoint' }>;

/** What the effects act through (store-triage.ts builds it once per store). */
export interface TriageIo {
  get: () => AppState;
  set: SetState;
  now: () => Date;
  say: (text: string, tone: 'ok') => void;
  rescan: () => Promise<void>;
  /** Journal what was done; the disk change stands even when the journal cannot be written (read-only, full disk). */
  record: (events: Omit<DecisionEvent, 'v' | 'at' | 'type'>[]) => Promise<void>;
  /** Same for the triage state: the disk change stands, the session keeps it in memory. */
  keep: (events: NewJournalEvent[]) => Promise<void>;
}

type Effect<K extends TriagePending['type']> = (io: TriageIo, p: Extract<TriagePending, { type: K }>, at: Date) => Promise<void>;

export const TRIAGE_EFFECTS: { [K in TriagePending['type']]: { busy: string; run: Effect<K> } } = {
  moves: {
    busy: 'backing up',
    run: async (io, p, at) => {
      const done = await runMoves(io.get().ws.root, p.moves, at);
      const out = movesOutcome(io.get().ws, p, done, at, io.now().getTime());
      await io.record(out.decisions);
      await io.keep(out.events);
      io.set((s) => afterMoves(s, out));
      // On marks, the result names each file and each refusal (docs/marks.md).
      if (p.refused) io.set({ message: { text: `${resultWords(p.redo.length ? 'backed up and queued' : 'backed up', done.map((m) => m.path), p.refused)} (u undoes)`, tone: 'ok' } });
      await io.rescan();
    },
  },
  keeps: {
    busy: 'marking',
    run: async (io, p, at) => {
      const kept: string[] = [];
      const refused: Refused[] = [...p.refused];
      // Each file as `m` keeps one; one that fails is said and the others go on.
      for (const k of p.keeps) {
        try {
          const done = await runKeep(io.get().ws.root, k.move.path, k.marker, at);
          await io.record([{ kind: 'keep', ...cellOf(io.get().ws, done.path), path: done.path, backupPath: done.backup, note: `marker <!-- ${k.marker} --> appended` }]);
          kept.push(done.path);
        } catch (err) {
          refused.push({ what: k.move.path, why: (err as Error)?.message ?? String(err) });
        }
      }
      io.say(resultWords('kept', kept, refused), 'ok');
      await io.rescan();
    },
  },
  skips: {
    busy: 'skipping',
    run: async (io, p) => {
      const at = io.now().getTime();
      await io.keep(p.paths.map((path): NewJournalEvent => ({ type: 'skip', at, path, on: true })));
      io.set((st) => {
        const skipped = [...st.skipped, ...p.paths.filter((x) => !st.skipped.includes(x))];
        return { skipped, message: { text: resultWords('skipped', p.paths, []), tone: 'info' }, ...clampCursors({ ...st, skipped }, true) };
      });
    },
  },
  keep: {
    busy: 'marking',
    run: async (io, p, at) => {
      const done = await runKeep(io.get().ws.root, p.move.path, p.marker, at);
      await io.record([
        { kind: 'keep', ...cellOf(io.get().ws, done.path), path: done.path, backupPath: done.backup, note: `marker <!-- ${p.marker} --> appended` },
      ]);
      io.say(`${done.path}: marker <!-- ${p.marker} --> appended; the previous version is in ${done.backup}`, 'ok');
      await io.rescan();
    },
  },
  undo: {
    busy: 'undoing',
    run: async (io, p) => {
      const restored = await undoMoves(io.get().ws.root, p.group.moves);
      await io.keep([{ type: 'undo_popped', at: io.now().getTime(), id: p.group.id }]);
      await io.record(restored.map((path) => ({ kind: 'restore', ...cellOf(io.get().ws, path), path, note: 'undo: moved back under its name' })));
      io.set((s) => afterUndo(s, p.group, restored));
      await io.rescan();
    },
  },
  checkpoint: {
    busy: 'writing checkpoint.md',
    run: async (io) => {
      const r = await rewriteCheckpoint(io.get().ws.root);
      io.say(`wrote ${r.path} (${r.changed} cell${r.changed === 1 ? '' : 's'} changed)${r.backup ? `; the previous version is in ${r.backup}` : ''}`, 'ok');
      await io.rescan();
    },
  },
};

/** The row for a pending triage dialog (TypeScript cannot correlate a mapped row with its key by itself). */
export const triageEffect = (p: TriagePending): { busy: string; run: Effect<TriagePending['type']> } | undefined =>
  TRIAGE_EFFECTS[p.type] as { busy: string; run: Effect<TriagePending['type']> } | undefined;
