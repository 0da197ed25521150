/* eslint-disable max-lines -- the recovery slice's one factory (RESUME.md, todos, report, backups, scheduler); issue 9 item 3 splits it into planners plus effects */
import { schedulerCheck } from './scheduler-check.js';
import type { StoreApi } from 'zustand/vanilla';
import type { WorkspaceState } from '../types.js';
import { loadConfig } from '../pipeline/config.js';
import { interrupted, recoverReport } from '../recover/report.js';
import { lastSessionEnd } from '../recover/session-end.js';
import { readJournal } from '../run/journal.js';
import { milestoneReached } from '../resume/milestone.js';
import { diffBackup, restoreBackup } from '../backups.js';
import { exists, inside } from '../backups-fs.js';
import { writeBackProven } from '../sources/level2.js';
import { sanitizeLine } from '../sanitize.js';
import { matchCommand, type CommandId } from './keymap.js';
import type { KeyToken } from './keys.js';
import { delta, isNav } from './nav.js';
import { goneUpdate, selectedFile as pickFile } from './selected.js';
import { seeFiles, type Seen } from './confirm-guard.js';
import type { AppState } from './store-types.js';
import type { RecoveryPending, RecoveryUi, SessionOptions } from './recovery-types.js';
import { backupRows, resumeStatus, writeBackLines, writeLetter } from './recovery-plan.js';
import { predictBackup } from './triage-actions.js';
import { rescanner, storeKit, type DiskDeps } from './store-kit.js';

// The store's recovery actions (DOMAIN.md sections 3, 5, 6): RESUME.md kept honest (drift
// on every change, rewritten at milestones, offered on quit), the recover report overlay
// and its rebuild, the todo write-back, the backups panel and restore. Like store-triage,
// every write is planned into a confirmation first, and only `confirm` touches the disk.

interface Deps extends DiskDeps {
  now: () => Date;
  session: SessionOptions;
}

/** Lines of the recover report the store scrolls over (the view draws at its own width). */
const REPORT_SCROLL = 200;

// eslint-disable-next-line max-lines-per-function -- one closure over the recovery slice's dialogs and their effects; issue 9 item 3 splits slices into pure planners plus an effects table
export function createRecovery({ set, get, live, now, track, session }: Deps) {
  const ur = (patch: Partial<RecoveryUi> | ((r: RecoveryUi) => Partial<RecoveryUi>)): void =>
    set((s) => ({ recovery: { ...s.recovery, ...(typeof patch === 'function' ? patch(s.recovery) : patch) } }));
  const kit = storeKit({ set, get, track });
  const { say, fail, act } = kit;
  const rescan = rescanner({ get, live });
  const ask = (title: string, lines: string[], action: RecoveryPending, at: Date, seen?: Seen[]): void => kit.ask(title, lines, { type: 'recovery', action }, at, seen);

  // RESUME.md against the disk, re-checked after every change; the newest check wins.
  let resumeSeq = 0;
  const checkResume = async (): Promise<RecoveryUi['resume']> => {
    const seq = ++resumeSeq;
    const ws = get().ws;
    try {
      const st = await resumeStatus(ws, now().getTime());
      if (seq === resumeSeq) ur({ resume: st });
      return st;
    } catch {
      return null;
    }
  };

  const checkScheduler = schedulerCheck(() => get().ws, (scheduler) => ur({ scheduler }), now);

  const openReport = (quiet: boolean): Promise<void> =>
    recoverReport(get().ws.root, { dryRun: true, now: now() }).then(
      (report) => {
        const s = get();
        // A report that arrives after the operator started working does not cover their screen.
        if (quiet && (s.recovery.keyed || s.quit || s.dialog)) return say('the last session was interrupted: :recover shows the recover report', 'warn');
        ur({ recover: { report, offset: 0 } });
      },
      (err: Error) => (quiet ? undefined : fail(err)),
    );

  /** The picked file (issue 8 item 2); undefined when the picked row left its list (said). */
  const selectedFile = (): string | null | undefined => {
    const p = pickFile(get());
    if (p && 'gone' in p) return void set(goneUpdate(get(), get().view, p.gone));
    return p?.item ?? null;
  };

  const loadHunks = (file: string, backup: string): void => {
    track(
      diffBackup(get().ws.root, backup, file).then(
        (d) => ur((r) => (r.backups && r.backups.file === file && r.backups.rows[r.backups.cursor]?.path === backup ? { backups: { ...r.backups, hunks: d.hunks.map(sanitizeLine), offset: 0 } } : {})),
        (err: Error) => ur((r) => (r.backups ? { backups: { ...r.backups, hunks: [], note: err.message } } : {})),
      ),
    );
  };

  /** `keep`: the backup that was selected; a restore adds a backup, so the list reorders and the cursor follows it. */
  const loadBackups = async (file: string, keep: string | null = null): Promise<void> => {
    const rows = await backupRows(get().ws.root, file, now().getTime());
    const at = Math.max(0, keep === null ? 0 : rows.findIndex((r) => r.path === keep));
    ur({ backups: { file, rows, cursor: at, hunks: rows.length ? null : [], offset: 0, note: rows.length ? null : `no backups of ${file} (backups are named ${file}.bak.<time>)` } });
    if (rows.length) loadHunks(file, rows[at].path);
  };

  const scroll = (id: CommandId): void => {
    const s = get();
    const r = s.recovery;
    const page = Math.max(1, s.pageSize);
    const step = (at: number, max: number): number => Math.max(0, Math.min(max, delta(id, page, max + 1, at)));
    if (r.backups) {
      const b = r.backups;
      if (id === 'page.up' || id === 'page.down') return ur({ backups: { ...b, offset: step(b.offset, Math.max(0, (b.hunks?.length ?? 0) - 1)) } });
      const cursor = step(b.cursor, Math.max(0, b.rows.length - 1));
      if (cursor === b.cursor) return;
      ur({ backups: { ...b, cursor, hunks: null, offset: 0 } });
      return loadHunks(b.file, b.rows[cursor].path);
    }
    if (r.recover) ur({ recover: { ...r.recover, offset: step(r.recover.offset, REPORT_SCROLL) } });
  };

  const requestRebuild = (): void => {
    const report = get().recovery.recover?.report;
    if (!report) return;
    const at = now();
    const root = get().ws.root;
    const targets = report.rebuilt.filter((a) => !a.manual && !a.done);
    const manual = report.rebuilt.filter((a) => a.manual);
    if (targets.length === 0) return say(`nothing to rebuild here: every file checkroom writes agrees with the disk${manual.length ? `; ${manual.length} item${manual.length === 1 ? '' : 's'} need an agent or the operator (see the report)` : ''}`, 'info');
    act('planning the rebuild', async () => {
      const taken = new Set<string>();
      const planned: { file: string; backup: string | null }[] = [];
      const lines: string[] = [];
      for (const t of targets) {
        const backup = (await exists(inside(root, t.target))) ? await predictBackup(root, t.target, at, taken) : null;
        if (backup) taken.add(backup);
        planned.push({ file: t.target, backup });
        lines.push(backup ? `${t.target} → ${backup} (a copy of the old file)` : `${t.target} is created`, `${t.target}: ${t.reason}`);
      }
      for (const m of manual) lines.push(`not done here: ${m.target}: ${m.reason}`);
      ask(`Rebuild ${planned.map((p) => p.file).join(' and ')} from the disk`, lines, { kind: 'rebuild', targets: planned }, at);
    });
  };

  const requestResume = (): void => {
    const at = now();
    act('comparing RESUME.md with the disk', async () => {
      const st = (await checkResume()) ?? get().recovery.resume;
      const root = get().ws.root;
      const file = st?.file ?? 'RESUME.md';
      const backup = st?.exists ? await predictBackup(root, file, at) : null;
      const lines = [
        backup ? `${file} → ${backup} (a copy of the old letter)` : `${file} is created`,
        `${file}: rewritten from the disk (written atomically)`,
        ...(st?.disagreements ?? []).map((d) => `  fixes: ${d}`),
      ];
      ask(`Write ${file}${st?.why ? `: ${st.why}` : ''}`, lines, { kind: 'resume', file, backup }, at);
    });
  };

  const requestWriteBack = (): void => {
    const plan = writeBackLines(get().ws);
    if (!plan) return say('no readable todo table in this workspace (level 2 is optional)', 'info');
    if (plan.ids.length === 0) return say(`${plan.path}: no todo is proven done on disk while the table says otherwise`, 'info');
    ask(
      `Write back ${plan.ids.length} proven todo${plan.ids.length === 1 ? '' : 's'} to ${plan.path}`,
      [...plan.lines, `${plan.path}: one transaction; only these rows change (status → done)`],
      { kind: 'writeback', path: plan.path, ids: plan.ids },
      now(),
    );
  };

  const requestRestore = (): void => {
    const b = get().recovery.backups;
    const row = b?.rows[b.cursor];
    if (!b || !row) return say('no backup selected', 'warn');
    const at = now();
    act('planning the restore', async () => {
      const root = get().ws.root;
      const current = (await exists(inside(root, b.file))) ? await predictBackup(root, b.file, at) : null;
      const lines = [current ? `${b.file} → ${current} (the current version is kept)` : `${b.file} does not exist now: nothing to keep`, `${row.path} → ${b.file} (copied back; the backup stays)`];
      // Confirm refuses if the file got a live writer or changed meanwhile (issue 8 item 1).
      const cell = get().ws.cells.find((c) => c.path === b.file);
      const seen = await seeFiles(root, [{ unit: cell?.unit ?? '', step: cell?.step ?? '', path: b.file }]);
      ask(`Restore ${b.file} from ${row.path.slice(b.file.length + 1)}`, lines, { kind: 'restore', backup: row.path, file: b.file, currentBackup: current }, at, seen);
    });
  };

  const quitWithLetter = (): void => {
    ur({ quitOffer: false });
    set({ busy: 'writing RESUME.md before quitting' });
    // Never block quitting: a failed write is said, and the control room quits anyway.
    track(
      writeLetter(get().ws, now()).then(
        (r) => set({ busy: null, quit: true, message: { text: `wrote ${r.path}${r.backup ? ` (previous in ${r.backup})` : ''}`, tone: 'ok' } }),
        (err: Error) => set({ busy: null, quit: true, message: { text: `RESUME.md not written: ${err.message}`, tone: 'fail' } }),
      ),
    );
  };

  const onWorkspace = (prev: WorkspaceState, next: WorkspaceState): void => {
    track(checkResume());
    // Not tracked: a read of the scheduler is no write that quitting must wait for.
    void checkScheduler();
    if (!session.milestones || get().readonly || prev.root !== next.root) return;
    const m = milestoneReached(prev, next);
    if (!m) return;
    track(
      writeLetter(next, now()).then(
        (r) => {
          say(`milestone: ${m} · RESUME.md rewritten${r.backup ? ` (previous in ${r.backup})` : ''}`, 'ok');
          return checkResume();
        },
        (err: Error) => say(`milestone: ${m} · RESUME.md not written: ${err.message}`, 'fail'),
      ),
    );
  };

  return {
    /** Start watching: RESUME.md drift now and after every change; the recover report if the last session was interrupted. */
    attach(store: StoreApi<AppState>): () => void {
      const unsubscribe = store.subscribe((s, prev) => {
        if (s.ws !== prev.ws) onWorkspace(prev.ws, s.ws);
      });
      void checkScheduler();
      track(
        Promise.all([checkResume(), session.recoverOnStart ? readJournal(get().ws.root) : null]).then(([st, j]) => {
          if (j && interrupted(get().ws, st, lastSessionEnd(j.events, process.pid))) return openReport(true);
        }),
      );
      return unsubscribe;
    },

    /** `q`: offer to write a stale RESUME.md first (y/n/esc); otherwise quit. */
    quit(): void {
      const s = get();
      if (session.resumeOnQuit && !s.readonly && !s.busy && s.recovery.resume?.stale) return ur({ quitOffer: true });
      set({ quit: true });
    },

    /** Keys for the recovery overlays; false when none is open (the view gets the key). */
    feed(t: KeyToken): boolean {
      const s = get();
      if (!s.recovery.keyed) ur({ keyed: true });
      const r = get().recovery;
      if (r.quitOffer) {
        const c = matchCommand(t, 'offer', s.view);
        if (c) s.run(c.id);
        return true;
      }
      const scope = r.backups ? 'backups' : r.recover ? 'recover' : null;
      if (!scope) return false;
      const own = matchCommand(t, scope, s.view);
      if (own) {
        s.run(own.id);
        return true;
      }
      const main = matchCommand(t, 'main', s.view);
      if (!main) return true;
      if (isNav(main.id)) {
        scroll(main.id);
        return true;
      }
      if (main.id === 'quit') {
        s.run('quit');
        return true;
      }
      // Any other key closes the overlay and does what it does in the view (like the `?` overlay).
      ur(scope === 'backups' ? { backups: null } : { recover: null });
      return false;
    },

    run(id: CommandId): void {
      switch (id) {
        case 'recover.open':
          ur({ backups: null });
          return act('reading the recover report', () => openReport(false));
        case 'recover.close':
          return ur({ recover: null });
        case 'recover.rebuild':
          return requestRebuild();
        case 'backups.open': {
          const file = selectedFile();
          if (file === undefined) return;
          if (!file) return say('select a file first (a partial, or a cell of the matrix)', 'warn');
          return act(`listing backups of ${file}`, () => loadBackups(file));
        }
        case 'backups.close':
          return ur({ backups: null });
        case 'backups.restore':
          return requestRestore();
        case 'resume.write':
          return requestResume();
        case 'todos.writeback':
          return requestWriteBack();
        case 'offer.write':
          return quitWithLetter();
        case 'offer.skip':
          ur({ quitOffer: false });
          return set({ quit: true });
        case 'offer.back':
          ur({ quitOffer: false });
          return say('not quitting', 'info');
        default:
          return;
      }
    },

    confirm(): void {
      const d = get().dialog;
      if (!d || d.pending.type !== 'recovery') return;
      set({ dialog: null });
      const p = d.pending.action;
      const at = new Date(d.at);
      const root = get().ws.root;
      switch (p.kind) {
        case 'resume':
          return act(`writing ${p.file}`, async () => {
            const r = await writeLetter(get().ws, at);
            say(`wrote ${r.path}${r.backup ? `; the previous letter is in ${r.backup}` : ''}`, 'ok');
            await checkResume();
          });
        case 'writeback':
          return act(`writing back to ${p.path}`, async () => {
            const config = await loadConfig(root);
            const r = writeBackProven(root, config, get().ws);
            if (!r) throw new Error(`${p.path} cannot be read now; nothing was written`);
            say(`${p.path}: ${r.updated} todo${r.updated === 1 ? '' : 's'} set to done (${r.ids.join(', ')})${r.missing.length ? `; gone since: ${r.missing.join(', ')}` : ''}`, 'ok');
            await rescan();
          });
        case 'rebuild':
          return act('rebuilding from the disk', async () => {
            const report = await recoverReport(root, { dryRun: false, now: at });
            const done = report.rebuilt.filter((a) => a.done);
            ur((r) => (r.recover ? { recover: { report, offset: 0 } } : {}));
            say(`rebuilt ${done.map((a) => `${a.target}${a.backup ? ` (previous in ${a.backup})` : ''}`).join(', ') || 'nothing'}`, 'ok');
            await rescan();
            await checkResume();
          });
        case 'restore':
          return act(`restoring ${p.file}`, async () => {
            const r = await restoreBackup(root, p.backup, at);
            say(`restored ${r.restored} from ${p.backup}${r.currentBackedUpTo ? `; the version it replaced is in ${r.currentBackedUpTo}` : ''}`, 'ok');
            await rescan();
            const b = get().recovery.backups;
            if (b) await loadBackups(b.file, b.rows[b.cursor]?.path ?? null);
          });
      }
    },
  };
}

export type RecoveryActions = ReturnType<typeof createRecovery>;
