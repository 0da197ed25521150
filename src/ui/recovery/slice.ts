import { recoverReport } from '../../recover/report.js';
import { diffBackup } from '../../backups/backups.js';
import { exists, inside } from '../../backups/fs.js';
import { sanitizeLine } from '../../text/sanitize.js';
import type { WorkspaceRead } from '../../recover/load.js';
import type { KeyToken } from '../keys/keys.js';
import { goneUpdate, selectedFile } from '../store/selected.js';
import { seeFiles } from '../keys/confirm-guard.js';
import type { RecoveryUi, SessionOptions } from './types.js';
import type { AppState } from '../store/types.js';
import { backupRows, writeLetter } from './plan.js';
import {
  backupsPanel,
  hunksArrived,
  overlayRoute,
  planQuit,
  planRebuild,
  planRestore,
  planWriteBack,
  rebuildAsk,
  reportArrived,
  resumeAsk,
  restoreAsk,
  scrollPlan,
} from './planners.js';
import { recoveryEffect, type RecoveryIo } from './effects.js';
import { recoverySession } from './session.js';
import { predictBackup } from '../triage/actions.js';
import { rescanner, storeKit, type DiskDeps } from '../store/kit.js';

// The store's recovery actions (docs/domain.md, Three sources of progress; What goes wrong; RESUME.md): RESUME.md kept honest (drift
// on every change, rewritten at milestones, offered on quit: recovery-session.ts), the
// recover report overlay and its rebuild, the todo write-back, the backups panel and
// restore. Like store-triage, every write is planned into a confirmation first, and only
// `confirm` touches the disk. The decisions are pure (recovery-planners.ts), what a dialog
// does is a row of recovery-effects.ts; this file reads what they need and applies them.

interface Deps extends DiskDeps {
  now: () => Date;
  session: SessionOptions;
}

/** What the overlays read and load (the report, the backups and their diffs). */
function recoveryReads({ set, get, track, now, live }: Omit<Deps, 'session'>) {
  const kit = storeKit({ set, get, track });
  const update = (patch: Partial<RecoveryUi> | ((r: RecoveryUi) => Partial<RecoveryUi>)): void =>
    set((s) => ({ recovery: { ...s.recovery, ...(typeof patch === 'function' ? patch(s.recovery) : patch) } }));
  // The live workspace, not a second read of it (+95 MB at 50k files).
  const openReport = (quiet: boolean): Promise<void> =>
    live
      .read()
      .then((read) => recoverReport(get().ws.root, { dryRun: true, now: now(), read }))
      .then(
        (report) => kit.apply(reportArrived(get(), report, quiet), now()),
        (err: Error) => (quiet ? undefined : kit.fail(err)),
      );
  const loadHunks = (file: string, backup: string): void =>
    track(
      diffBackup(get().ws.root, backup, file).then(
        (d) => update((r) => hunksArrived(r, file, backup, d.hunks.map(sanitizeLine))),
        (err: Error) => update((r) => (r.backups ? { backups: { ...r.backups, hunks: [], note: err.message } } : {})),
      ),
    );
  const loadBackups = async (file: string, keep: string | null = null): Promise<void> => {
    const panel = backupsPanel(file, await backupRows(get().ws.root, file, now().getTime()), keep);
    update({ backups: panel });
    if (panel.rows.length) loadHunks(file, panel.rows[panel.cursor].path);
  };
  return { kit, update, openReport, loadHunks, loadBackups };
}

/** The requests that plan a write from what the disk holds: each ends in a confirmation (or a message). */
function recoveryRequests({
  get,
  now,
  kit,
  checkResume,
}: {
  get: () => AppState;
  now: () => Date;
  kit: ReturnType<typeof storeKit>;
  checkResume: () => Promise<RecoveryUi['resume']>;
}) {
  const { act, apply, settle } = kit;
  const root = (): string => get().ws.root;
  /** The name the file's current version gets, or null when there is no such file. */
  const backupOf = async (file: string, at: Date, taken?: Set<string>): Promise<string | null> =>
    (await exists(inside(root(), file))) ? predictBackup(root(), file, at, taken) : null;
  return {
    requestRebuild: (): void => {
      const report = get().recovery.recover?.report;
      const at = now();
      const plan = report && settle(planRebuild(report), at);
      if (!plan) return;
      act('planning the rebuild', async () => {
        const taken = new Set<string>();
        const planned: { file: string; backup: string | null; reason: string }[] = [];
        for (const t of plan.targets) {
          const backup = await backupOf(t.target, at, taken);
          if (backup) taken.add(backup);
          planned.push({ file: t.target, backup, reason: t.reason });
        }
        apply({ ask: rebuildAsk(planned, plan.manual) }, at);
      });
    },

    requestRestore: (): void => {
      const at = now();
      const pick = settle(planRestore(get().recovery), at);
      if (!pick) return;
      act('planning the restore', async () => {
        const current = await backupOf(pick.file, at);
        // Confirm refuses if the file got a live writer or changed meanwhile.
        const cell = get().ws.cells.find((c) => c.path === pick.file);
        const seen = await seeFiles(root(), [{ unit: cell?.unit ?? '', step: cell?.step ?? '', path: pick.file }]);
        apply({ ask: restoreAsk(pick.file, pick.row, current, seen) }, at);
      });
    },

    requestResume: (): void => {
      const at = now();
      act('comparing RESUME.md with the disk', async () => {
        const st = (await checkResume()) ?? get().recovery.resume;
        apply({ ask: resumeAsk(st, st?.exists ? await predictBackup(root(), st.file, at) : null) }, at);
      });
    },
    requestWriteBack: (): void => apply(planWriteBack(get().ws), now()),
  };
}

export function createRecovery(deps: Deps) {
  const { set, get, live, now, track, session } = deps;
  const { kit, update, openReport, loadHunks, loadBackups } = recoveryReads(deps);
  const { say, act } = kit;
  const read = (): Promise<WorkspaceRead> => live.read();
  const watch = recoverySession({ get, track, now, session, update, say, openReport, read });
  const io: RecoveryIo = { get, say, update, rescan: rescanner({ get, live }), checkResume: watch.checkResume, loadBackups, read };
  const requests = recoveryRequests({ get, now, kit, checkResume: watch.checkResume });

  return {
    attach: watch.attach,
    quit: (): void => set(planQuit(get(), session)),

    /** Keys for the recovery overlays; false when none is open (the view gets the key). */
    feed(t: KeyToken): boolean {
      if (!get().recovery.keyed) update({ keyed: true });
      const route = overlayRoute(get().recovery, t, get().view);
      if (route === 'view' || route === 'swallow') return route === 'swallow';
      if ('run' in route) get().run(route.run);
      else if ('scroll' in route) {
        const next = scrollPlan(get().recovery, route.scroll, get().pageSize);
        if (next) update(next.patch);
        if (next?.load) loadHunks(get().recovery.backups!.file, next.load);
      } else update(route.close === 'backups' ? { backups: null } : { recover: null });
      return !('close' in route);
    },

    openReport: (): void => {
      update({ backups: null });
      act('reading the recover report', () => openReport(false));
    },
    closeReport: (): void => update({ recover: null }),
    openBackups: (): void => {
      const p = selectedFile(get());
      if (p && 'gone' in p) return set(goneUpdate(get(), get().view, p.gone));
      if (!p) return say('select a file first (a partial, or a cell of the matrix)', 'warn');
      act(`listing backups of ${p.item}`, () => loadBackups(p.item));
    },
    closeBackups: (): void => update({ backups: null }),
    ...requests,

    /** The quit offer's y: write the letter, then quit; a failed write is said, and it quits anyway (never block quitting). */
    offerWrite: (): void => {
      update({ quitOffer: false });
      set({ busy: 'writing RESUME.md before quitting' });
      track(
        writeLetter(get().ws, now(), read).then(
          (r) => set({ busy: null, quit: true, message: { text: `wrote ${r.path}${r.backup ? ` (previous in ${r.backup})` : ''}`, tone: 'ok' } }),
          (err: Error) => set({ busy: null, quit: true, message: { text: `RESUME.md not written: ${err.message}`, tone: 'fail' } }),
        ),
      );
    },
    offerSkip: (): void => set((s) => ({ quit: true, recovery: { ...s.recovery, quitOffer: false } })),
    offerBack: (): void => {
      update({ quitOffer: false });
      say('not quitting', 'info');
    },

    confirm(): void {
      const d = get().dialog;
      if (!d || d.pending.type !== 'recovery') return;
      set({ dialog: null });
      const p = d.pending.action;
      const row = recoveryEffect(p);
      act(row.busy(p), () => row.run(io, p, new Date(d.at)));
    },
  };
}

export type RecoveryActions = ReturnType<typeof createRecovery>;
