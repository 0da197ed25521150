import { CLAIM_ASCII } from '../glyphs.js';
import { CLAIM_GLYPH } from '../checkpoint/glyphs.js';
import { rewriteCheckpoint } from '../checkpoint/rewrite.js';
import type { Claim } from '../types.js';
import type { DecisionEvent, NewJournalEvent } from '../run/journal.js';
import { checkpointDiff } from './checkpoint-diff.js';
import { partialItems, type PartialItem } from './select.js';
import { seeFiles } from './confirm-guard.js';
import { liveWriters, writerOf, writingWhy } from './live-writers.js';
import { goneUpdate, selectedPartial } from './selected.js';
import { rescanner, storeKit, type DiskDeps } from './store-kit.js';
import { planMoves, predictBackup, runKeep, runMoves, undoMoves } from './triage-actions.js';

// The store's disk actions: each request plans the change (exact file names), opens a
// confirmation, and only `confirm` touches the disk (k9s: destructive keys confirm).
// After a change the workspace is rescanned, so the views show what the disk now says.

interface Deps extends DiskDeps {
  now: () => Date;
  /** Records the operator's decision in the journal (RESUME.md's key decisions, an agent's {backup}); absent without a supervisor. */
  decide?: (e: Omit<DecisionEvent, 'v' | 'at' | 'type'>) => Promise<void>;
  /** Appends a triage event (redo queue, undo stack) so a restart keeps them (issue 8 item 8); absent without a supervisor. */
  journal?: (e: NewJournalEvent) => Promise<void>;
}

const hhmmss = (d: Date): string => d.toTimeString().slice(0, 8);

// eslint-disable-next-line max-lines-per-function -- one closure over the triage slice's dialogs and their effects; issue 9 item 3 splits slices into pure planners plus an effects table
export function createTriage({ set, get, live, now, track, decide, journal }: Deps) {
  const { say, sayClean, ask, act } = storeKit({ set, get, track });
  const rescan = rescanner({ get, live });
  /** Journal what was done; the disk change stands even when the journal cannot be written (read-only, full disk). */
  const record = async (events: Omit<DecisionEvent, 'v' | 'at' | 'type'>[]): Promise<void> => {
    if (!decide) return;
    for (const e of events) await decide(e).catch(() => undefined);
  };
  /** Same for the triage state: the disk change stands, the session keeps it in memory. */
  const keep = async (events: NewJournalEvent[]): Promise<void> => {
    if (!journal) return;
    for (const e of events) await journal(e).catch(() => undefined);
  };
  const cellOf = (path: string): { unit?: string; step?: string } => {
    const c = get().ws.cells.find((x) => x.path === path);
    return c ? { unit: c.unit, step: c.step } : {};
  };

  /** The picked partial (issue 8 item 2), or null after saying why there is none to act on. */
  const selected = (): PartialItem | null => {
    const s = get();
    const p = selectedPartial(s);
    if (!p) return say('nothing selected', 'warn'), null;
    if ('gone' in p) return set(goneUpdate(s, 'partials', p.gone)), null;
    // A live writer makes the file untouchable until it stops (issue 8 item 1).
    const w = writerOf(liveWriters(s), p.item.file);
    if (w) return sayClean(writingWhy(w, p.item.file), 'warn'), null;
    return p.item;
  };

  const claimGlyph = (c: Claim | null): string => (c === null ? '(none)' : get().ascii ? CLAIM_ASCII[c] : CLAIM_GLYPH[c]);

  return {
    refresh: (): void =>
      act('rescanning', async () => {
        await rescan();
        say(`rescanned at ${hhmmss(new Date())}`, 'ok');
      }),

    requestMove: (redo: boolean): void => {
      const item = selected();
      if (!item) return;
      const at = now();
      const { path, unit, step } = item.file;
      act('planning', async () => {
        const seen = await seeFiles(get().ws.root, [item.file]);
        const moves = await planMoves(get().ws.root, [path], at);
        const lines = moves.map((m) => `${m.path} → ${m.backup}`);
        if (redo) lines.push(`queue ${unit} ${step} for relaunch (shown in the Plan view)`);
        ask(redo ? `Redo ${unit} ${step}: back up the file and queue the step` : `Back up ${path}`, lines, { type: 'moves', moves, redo: redo ? [{ unit, step, path }] : [] }, at, seen);
      });
    },

    requestConservative: (): void => {
      const s = get();
      const writers = liveWriters(s);
      const all = partialItems(s.ws, s.filter, s.skipped).filter((i) => i.section === 'partial' && i.file.verdict === 'almost_certainly_partial');
      // Files with a live writer are left alone (issue 8 item 1), and the dialog says so.
      const targets = all.filter((i) => !writerOf(writers, i.file));
      const writing = all.length - targets.length;
      const left = writing ? `${writing} being written, left alone` : '';
      if (targets.length === 0) return say(`conservative strategy: no almost_certainly_partial file to back up${left ? ` (${left})` : ''}`, 'info');
      const at = now();
      act('planning', async () => {
        const seen = await seeFiles(get().ws.root, targets.map((t) => t.file));
        const moves = await planMoves(get().ws.root, targets.map((t) => t.file.path), at);
        const lines = [...moves.map((m) => `${m.path} → ${m.backup}`), `queue ${targets.length} step${targets.length === 1 ? '' : 's'} for relaunch (shown in the Plan view)`, ...(left ? [`${left} until it stops`] : [])];
        const redo = targets.map((t) => ({ unit: t.file.unit, step: t.file.step, path: t.file.path }));
        ask(`Conservative strategy: back up ${moves.length} almost-certain partial${moves.length === 1 ? '' : 's'} and redo`, lines, { type: 'moves', moves, redo }, at, seen);
      });
    },

    requestKeep: (): void => {
      const item = selected();
      if (!item) return;
      if (item.section === 'suspect') return say(`${item.file.path} already ends with its marker; back it up or redo it instead`, 'warn');
      const step = get().ws.pipeline.steps.find((st) => st.id === item.file.step);
      if (!step?.marker) return say(`step ${item.file.step} has no marker to append`, 'warn');
      const marker = step.marker;
      const at = now();
      act('planning', async () => {
        const seen = await seeFiles(get().ws.root, [item.file]);
        const backup = await predictBackup(get().ws.root, item.file.path, at);
        const lines = [`${item.file.path} → ${backup} (a copy; the file stays)`, `${item.file.path}: append "<!-- ${marker} -->" as the last line`];
        ask(`Keep ${item.file.path}: mark it complete`, lines, { type: 'keep', move: { path: item.file.path, backup }, marker }, at, seen);
      });
    },

    requestUndo: (): void => {
      const group = get().undo.at(-1);
      if (!group) return say('nothing to undo: no backup was made in this session', 'info');
      const lines = [...group.moves].reverse().map((m) => `${m.backup} → ${m.path}`);
      const at = now();
      act('planning', async () => {
        // A file that reappeared or got a writer since (a relaunched redo) makes confirm refuse.
        const seen = await seeFiles(get().ws.root, group.moves.map((m) => ({ unit: '', step: '', ...cellOf(m.path), path: m.path })));
        ask(`Undo: ${group.label}`, lines, { type: 'undo', group }, at, seen);
      });
    },

    requestCheckpoint: (): void => {
      const at = now();
      act('comparing checkpoint.md with the disk', async () => {
        const root = get().ws.root;
        const diff = await checkpointDiff(root);
        // rewriteCheckpoint stamps its backup copy when it writes, so the name is given as a pattern.
        const backup = diff.exists ? `${diff.file}.bak.<time of the write>` : null;
        const n = diff.changes.length;
        const lines = [
          backup ? `${diff.file} → ${backup} (a copy of the old file)` : `${diff.file} is created`,
          `${diff.file}: rewritten from the disk; ${n} cell${n === 1 ? '' : 's'} change${n === 1 ? 's' : ''}`,
          ...diff.changes.map((c) => `  ${c.key}: ${claimGlyph(c.before)} → ${claimGlyph(c.after)}`),
        ];
        ask(`Rewrite ${diff.file}: ${n} cell${n === 1 ? '' : 's'} change`, lines, { type: 'checkpoint', diff, backup }, at);
      });
    },

    confirm: (): void => {
      const d = get().dialog;
      if (!d) return;
      set({ dialog: null });
      const p = d.pending;
      const at = new Date(d.at);
      const root = get().ws.root;
      switch (p.type) {
        case 'moves':
          return act('backing up', async () => {
            const done = await runMoves(root, p.moves, at);
            await record(
              done.map((m) => {
                const redo = p.redo.find((r) => r.path === m.path);
                return { kind: redo ? 'redo' : 'backup', ...cellOf(m.path), path: m.path, backupPath: m.backup, note: redo ? 'backed up and queued for relaunch' : 'backed up by the operator' };
              }),
            );
            const label = done.length === 1 ? `backup of ${done[0].path}` : `${done.length} backups`;
            const queuedAt = now().getTime();
            const queued = p.redo.map((r) => ({ ...r, backup: done.find((m) => m.path === r.path)?.backup ?? '', queuedAt }));
            const group = { id: `${at.getTime()}:${done.map((m) => m.backup).join(',')}`, label, moves: done };
            await keep([
              ...queued.map((q): NewJournalEvent => ({ type: 'redo_queued', at: queuedAt, unit: q.unit, step: q.step, path: q.path, backup: q.backup })),
              ...(done.length ? [{ type: 'undo_pushed', at: queuedAt, id: group.id, label, moves: done } satisfies NewJournalEvent] : []),
            ]);
            set((s) => ({
              undo: [...s.undo, group],
              redoQueue: [...s.redoQueue.filter((q) => !queued.some((r) => r.unit === q.unit && r.step === q.step)), ...queued],
              // Short enough for 80 columns: the backup name is the path plus a suffix.
              message: {
                text: `${done.length === 1 ? `${done[0].path} → …${done[0].backup.slice(done[0].path.length)}` : `${done.length} files backed up`}${queued.length ? `, ${queued.length} queued` : ''} (u undoes)`,
                tone: 'ok',
              },
            }));
            await rescan();
          });
        case 'keep':
          return act('marking', async () => {
            const done = await runKeep(root, p.move.path, p.marker, at);
            await record([{ kind: 'keep', ...cellOf(done.path), path: done.path, backupPath: done.backup, note: `marker <!-- ${p.marker} --> appended` }]);
            say(`${done.path}: marker <!-- ${p.marker} --> appended; the previous version is in ${done.backup}`, 'ok');
            await rescan();
          });
        case 'undo':
          return act('undoing', async () => {
            const restored = await undoMoves(root, p.group.moves);
            await keep([{ type: 'undo_popped', at: now().getTime(), id: p.group.id }]);
            await record(restored.map((path) => ({ kind: 'restore', ...cellOf(path), path, note: 'undo: moved back under its name' })));
            set((s) => ({
              undo: s.undo.filter((g) => g !== p.group),
              redoQueue: s.redoQueue.filter((q) => !restored.includes(q.path)),
              message: { text: `restored ${restored.join(', ')}`, tone: 'ok' },
            }));
            await rescan();
          });
        case 'checkpoint':
          return act('writing checkpoint.md', async () => {
            const r = await rewriteCheckpoint(root);
            say(`wrote ${r.path} (${r.changed} cell${r.changed === 1 ? '' : 's'} changed)${r.backup ? `; the previous version is in ${r.backup}` : ''}`, 'ok');
            await rescan();
          });
      }
    },
  };
}
