import type { RecoverReport } from '../../recover/report.js';
import type { WorkspaceState } from '../../types.js';
import type { Seen } from '../keys/confirm-guard.js';
import { matchCommand, type CommandId } from '../keys/keymap.js';
import type { KeyToken } from '../keys/keys.js';
import { delta, isNav } from '../views/nav.js';
import { writeBackLines } from './plan.js';
import type { BackupRow, BackupsPanel, RecoveryPending, RecoveryUi, ResumeStatus, SessionOptions } from './types.js';
import { said, type Ask, type Decision, type Planned } from '../store/kit.js';
import type { AppState } from '../store/types.js';
import type { ViewId } from '../views/views.js';

// The recovery slice's decisions as pure functions (docs/architecture.md, A dialog): RESUME.md, the todo
// write-back, the recover report and its rebuild, the backups panel, the quit offer. State
// and what the disk answered in; a message, a dialog, a state change or a key's route out.
// recovery-plan.ts reads the disk for them; recovery-effects.ts does what a dialog promised.

/** Lines of the recover report the store scrolls over (the view draws at its own width). */
export const REPORT_SCROLL = 200;

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
const recoveryAsk = (title: string, lines: string[], action: RecoveryPending, seen?: Seen[]): Ask => ({
  title,
  lines,
  pending: { type: 'recovery', action },
  ...(seen ? { seen } : {}),
});

type Rebuilt = RecoverReport['rebuilt'][number];

/** `R`: what the report says checkroom can rebuild itself, and what needs an agent or the operator. */
export function planRebuild(report: RecoverReport): Planned<{ targets: Rebuilt[]; manual: Rebuilt[] }> {
  const targets = report.rebuilt.filter((a) => !a.manual && !a.done);
  const manual = report.rebuilt.filter((a) => a.manual);
  if (targets.length > 0) return { go: { targets, manual } };
  return said(
    `nothing to rebuild here: every file checkroom writes agrees with the disk${manual.length ? `; ${plural(manual.length, 'item')} need an agent or the operator (see the report)` : ''}`,
    'info',
  );
}

/** `planned`: each target with the backup name its old file gets (null: it is created). */
export function rebuildAsk(planned: { file: string; backup: string | null; reason: string }[], manual: Rebuilt[]): Ask {
  const lines = planned.flatMap((p) => [p.backup ? `${p.file} → ${p.backup} (a copy of the old file)` : `${p.file} is created`, `${p.file}: ${p.reason}`]);
  for (const m of manual) lines.push(`not done here: ${m.target}: ${m.reason}`);
  const targets = planned.map(({ file, backup }) => ({ file, backup }));
  return recoveryAsk(`Rebuild ${planned.map((p) => p.file).join(' and ')} from the disk`, lines, { kind: 'rebuild', targets });
}

/** `W`: the letter rewritten from the disk, with what it fixes. */
export function resumeAsk(st: ResumeStatus | null, backup: string | null): Ask {
  const file = st?.file ?? 'RESUME.md';
  const lines = [
    backup ? `${file} → ${backup} (a copy of the old letter)` : `${file} is created`,
    `${file}: rewritten from the disk (written atomically)`,
    ...(st?.disagreements ?? []).map((d) => `  fixes: ${d}`),
  ];
  return recoveryAsk(`Write ${file}${st?.why ? `: ${st.why}` : ''}`, lines, { kind: 'resume', file, backup });
}

/** `t`: only the todos the disk proves done, in one transaction. */
export function planWriteBack(ws: WorkspaceState): Decision {
  const plan = writeBackLines(ws);
  if (!plan) return said('no readable todo table in this workspace (level 2 is optional)', 'info');
  if (plan.ids.length === 0) return said(`${plan.path}: no todo is proven done on disk while the table says otherwise`, 'info');
  const lines = [...plan.lines, `${plan.path}: one transaction; only these rows change (status → done)`];
  return {
    ask: recoveryAsk(`Write back ${plural(plan.ids.length, 'proven todo')} to ${plan.path}`, lines, { kind: 'writeback', path: plan.path, ids: plan.ids }),
  };
}

/** `enter` in the backups panel: the selected backup, or that there is none. */
export function planRestore(r: RecoveryUi): Planned<{ file: string; row: BackupRow }> {
  const row = r.backups?.rows[r.backups.cursor];
  return r.backups && row ? { go: { file: r.backups.file, row } } : said('no backup selected', 'warn');
}

/** `current`: where the current version is kept (null: there is none); `seen` arms the confirm guard. */
export function restoreAsk(file: string, row: BackupRow, current: string | null, seen: Seen[]): Ask {
  const lines = [
    current ? `${file} → ${current} (the current version is kept)` : `${file} does not exist now: nothing to keep`,
    `${row.path} → ${file} (copied back; the backup stays)`,
  ];
  return recoveryAsk(
    `Restore ${file} from ${row.path.slice(file.length + 1)}`,
    lines,
    { kind: 'restore', backup: row.path, file, currentBackup: current },
    seen,
  );
}

/** The panel on `file`'s backups; `keep`: the backup that was selected (a restore adds one, so the cursor follows it). */
export function backupsPanel(file: string, rows: BackupRow[], keep: string | null): BackupsPanel {
  const cursor = Math.max(0, keep === null ? 0 : rows.findIndex((r) => r.path === keep));
  const note = rows.length ? null : `no backups of ${file} (backups are named ${file}.bak.<time>)`;
  return { file, rows, cursor, hunks: rows.length ? null : [], offset: 0, note };
}

/** Diff hunks that arrived for `backup`: shown only if the panel still shows that backup. */
export const hunksArrived = (r: RecoveryUi, file: string, backup: string, hunks: string[]): Partial<RecoveryUi> =>
  r.backups && r.backups.file === file && r.backups.rows[r.backups.cursor]?.path === backup ? { backups: { ...r.backups, hunks, offset: 0 } } : {};

/** Movement in an overlay: the new recovery state, and the backup whose diff to read next, if any. */
export function scrollPlan(r: RecoveryUi, id: CommandId, pageSize: number): { patch: Partial<RecoveryUi>; load: string | null } | null {
  const page = Math.max(1, pageSize);
  const step = (at: number, max: number): number => Math.max(0, Math.min(max, delta(id, page, max + 1, at)));
  const b = r.backups;
  if (b) {
    if (id === 'page.up' || id === 'page.down')
      return { patch: { backups: { ...b, offset: step(b.offset, Math.max(0, (b.hunks?.length ?? 0) - 1)) } }, load: null };
    const cursor = step(b.cursor, Math.max(0, b.rows.length - 1));
    if (cursor === b.cursor) return null;
    return { patch: { backups: { ...b, cursor, hunks: null, offset: 0 } }, load: b.rows[cursor].path };
  }
  return r.recover ? { patch: { recover: { ...r.recover, offset: step(r.recover.offset, REPORT_SCROLL) } }, load: null } : null;
}

/** Where a key goes while a recovery overlay is open: its own command, a scroll, or closing it and on to the view. */
export type OverlayRoute = { run: CommandId } | { scroll: CommandId } | { close: 'backups' | 'recover' } | 'view' | 'swallow';

export function overlayRoute(r: RecoveryUi, t: KeyToken, view: ViewId): OverlayRoute {
  if (r.quitOffer) {
    const c = matchCommand(t, 'offer', view);
    return c ? { run: c.id } : 'swallow';
  }
  const scope = r.backups ? 'backups' : r.recover ? 'recover' : null;
  if (!scope) return 'view';
  const own = matchCommand(t, scope, view);
  if (own) return { run: own.id };
  const main = matchCommand(t, 'main', view);
  if (!main) return 'swallow';
  if (isNav(main.id)) return { scroll: main.id };
  if (main.id === 'quit') return { run: 'quit' };
  // Any other key closes the overlay and does what it does in the view (like the `?` overlay).
  return { close: scope };
}

/** `q`: offer to write a stale RESUME.md first (y/n/esc), unless read-only or busy; otherwise quit. */
export const planQuit = (s: AppState, session: SessionOptions): Partial<AppState> =>
  session.resumeOnQuit && !s.readonly && !s.busy && s.recovery.resume?.stale ? { recovery: { ...s.recovery, quitOffer: true } } : { quit: true };

/** A recover report that arrives after the operator started working does not cover their screen. */
export const reportArrived = (s: AppState, report: RecoverReport, quiet: boolean): Decision =>
  quiet && (s.recovery.keyed || s.quit || s.dialog)
    ? said('the last session was interrupted: :recover shows the recover report', 'warn')
    : { change: { recovery: { ...s.recovery, recover: { report, offset: 0 } } } };
