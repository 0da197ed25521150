import { loadConfig } from '../../pipeline/config/config.js';
import { recoverReport } from '../../recover/report.js';
import { restoreBackup } from '../../backups/backups.js';
import { writeBackProven } from '../../sources/level2.js';
import { writeLetter } from './plan.js';
import type { RecoveryPending, RecoveryUi } from './types.js';
import type { AppState } from '../store/types.js';
import type { WorkspaceRead } from '../../recover/load.js';

// What a recovery confirmation does on disk, one row per kind of dialog.
// Each row says what it is busy with (held while it runs, store-kit.ts `act`) and then
// rescans or re-checks RESUME.md, so the views show what the disk now says.

/** What the effects act through (store-recovery.ts builds it once per store). */
export interface RecoveryIo {
  get: () => AppState;
  /** A message in the store's words (names from the disk included, as before: store-kit.ts `say`). */
  say: (text: string, tone: 'ok') => void;
  update: (patch: (r: RecoveryUi) => Partial<RecoveryUi>) => void;
  rescan: () => Promise<void>;
  checkResume: () => Promise<unknown>;
  /** Re-list the backups panel, keeping the cursor on `keep`. */
  loadBackups: (file: string, keep: string | null) => Promise<void>;
  /** The live workspace as read: recovery does not read the workspace a second time. */
  read: () => Promise<WorkspaceRead>;
}

type Kind = RecoveryPending['kind'];
type Row<K extends Kind> = {
  busy: (p: Extract<RecoveryPending, { kind: K }>) => string;
  run: (io: RecoveryIo, p: Extract<RecoveryPending, { kind: K }>, at: Date) => Promise<void>;
};

export const RECOVERY_EFFECTS: { [K in Kind]: Row<K> } = {
  resume: {
    busy: (p) => `writing ${p.file}`,
    run: async (io, _p, at) => {
      const r = await writeLetter(io.get().ws, at, io.read);
      io.say(`wrote ${r.path}${r.backup ? `; the previous letter is in ${r.backup}` : ''}`, 'ok');
      await io.checkResume();
    },
  },
  writeback: {
    busy: (p) => `writing back to ${p.path}`,
    run: async (io, p) => {
      const root = io.get().ws.root;
      const r = writeBackProven(root, await loadConfig(root), io.get().ws);
      if (!r) throw new Error(`${p.path} cannot be read now; nothing was written`);
      io.say(
        `${p.path}: ${r.updated} todo${r.updated === 1 ? '' : 's'} set to done (${r.ids.join(', ')})${r.missing.length ? `; gone since: ${r.missing.join(', ')}` : ''}`,
        'ok',
      );
      await io.rescan();
    },
  },
  rebuild: {
    busy: () => 'rebuilding from the disk',
    run: async (io, _p, at) => {
      const report = await recoverReport(io.get().ws.root, { dryRun: false, now: at, read: await io.read() });
      const done = report.rebuilt.filter((a) => a.done);
      io.update((r) => (r.recover ? { recover: { report, offset: 0 } } : {}));
      io.say(`rebuilt ${done.map((a) => `${a.target}${a.backup ? ` (previous in ${a.backup})` : ''}`).join(', ') || 'nothing'}`, 'ok');
      await io.rescan();
      await io.checkResume();
    },
  },
  restore: {
    busy: (p) => `restoring ${p.file}`,
    run: async (io, p, at) => {
      const r = await restoreBackup(io.get().ws.root, p.backup, at);
      io.say(`restored ${r.restored} from ${p.backup}${r.currentBackedUpTo ? `; the version it replaced is in ${r.currentBackedUpTo}` : ''}`, 'ok');
      await io.rescan();
      const b = io.get().recovery.backups;
      if (b) await io.loadBackups(b.file, b.rows[b.cursor]?.path ?? null);
    },
  },
};

/** The row for a pending recovery dialog (TypeScript cannot correlate a mapped row with its key by itself). */
export const recoveryEffect = (p: RecoveryPending): Row<Kind> => RECOVERY_EFFECTS[p.kind] as Row<Kind>;
