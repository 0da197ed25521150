import type { RecoverReport } from '../../recover/report.js';
import type { SchedulerSource } from '../../sources/scheduler.js';

// The control room's recovery state (docs/domain.md, Three sources of progress; What goes wrong; RESUME.md): RESUME.md against the
// disk, the recover report overlay, the backups panel and the quit offer. Plain data; the
// actions live in store-recovery.ts.

/** What the entry turns on for an interactive session; tests opt in. */
export interface SessionOptions {
  /** Open the recover report when there is evidence of an interruption. */
  recoverOnStart?: boolean;
  /** Rewrite RESUME.md when a batch completes or the phase changes. */
  milestones?: boolean;
  /** Offer to write a stale RESUME.md on `q`. */
  resumeOnQuit?: boolean;
}

export interface ResumeStatus {
  file: string;
  exists: boolean;
  ageMs: number | null;
  generatedAt: string | null;
  /** Where the letter no longer agrees with the disk (resumeDrift). */
  disagreements: string[];
  /** Missing, contradicted by the disk, or older than the last change on disk. */
  stale: boolean;
  why: string | null;
}

export interface RecoverOverlay {
  report: RecoverReport;
  /** First line shown (the component draws the report at the terminal's width). */
  offset: number;
}

export interface BackupRow {
  path: string;
  bytes: number;
  ageMs: number;
  /** One line: `+3 −1 lines`, `identical`, or a note. */
  summary: string;
}

export interface BackupsPanel {
  /** The file whose backups are listed (workspace-relative). */
  file: string;
  rows: BackupRow[];
  cursor: number;
  /** Diff hunks of the selected backup against the current file, sanitized; null while loading. */
  hunks: string[] | null;
  offset: number;
  note: string | null;
  /** The diff side by side, the backup left and the current file right (docs/redo.md); else unified. */
  side?: boolean;
}

export interface RecoveryUi {
  resume: ResumeStatus | null;
  recover: RecoverOverlay | null;
  backups: BackupsPanel | null;
  quitOffer: boolean;
  /** A key was pressed: a report that arrives later does not pop up over the operator's work. */
  keyed: boolean;
  /** The cluster's jobs of this workspace against its cells (null: no agent runs on one). */
  scheduler?: SchedulerSource | null;
}

/** What a recovery confirmation will do, planned before anything changes. */
export type RecoveryPending =
  | { kind: 'resume'; file: string; backup: string | null }
  | { kind: 'writeback'; path: string; ids: string[] }
  | { kind: 'rebuild'; targets: { file: string; backup: string | null }[] }
  | { kind: 'restore'; backup: string; file: string; currentBackup: string | null };

export const initialRecovery = (): RecoveryUi => ({ resume: null, recover: null, backups: null, quitOffer: false, keyed: false });

export const recoveryOverlayOpen = (r: RecoveryUi): boolean => r.quitOffer || r.recover !== null || r.backups !== null;
