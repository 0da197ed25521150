import type { Claim, Lang, PhaseStatus, Warning } from '../types.js';

/** The claim a cell of a rewritten checkpoint must hold; undefined leaves the cell as it is. */
export type ClaimOf = (unit: string, step: string) => Claim | undefined;

export interface CheckpointRow {
  unit: string;
  /** step id → claim, for the columns present in this table. */
  claims: Record<string, Claim>;
  /** Column heading → cell text as written, for columns that are no step (ExtraColumn). */
  extra?: Record<string, string>;
  line: number;
}

/**
 * A column checkroom does not know (`备注`, `Owner`): kept with its values when the file is
 * rewritten, in its place — after the step column `after`, or first when null.
 */
export interface ExtraColumn {
  heading: string;
  after: string | null;
}

export interface CheckpointBatch {
  /**
   * null: the rows of tables under no `### Batch N` heading (before the first one, or under a
   * phase with no batch headings) — the units of no batch. Never a batch of its own ("batch
   * 0"): they are written back under no heading, never under an invented one.
   */
  id: number | null;
  /** Status suffix of the `### Batch N — 未开始` heading, if any. */
  status: PhaseStatus | null;
  /** Step ids of the table columns, in order. */
  columns: string[];
  /** Columns that are no step, with where they stand; absent when there are none. */
  extra?: ExtraColumn[];
  rows: CheckpointRow[];
  line: number;
}

export interface CheckpointPhase {
  id: number;
  name: string;
  status: PhaseStatus | null;
  line: number;
}

export interface CheckpointDoc {
  lang: Lang;
  project: string | null;
  lastUpdate: string | null;
  currentPhase: number | null;
  currentBatch: number | null;
  phases: CheckpointPhase[];
  batches: CheckpointBatch[];
  /** The layout details needed to write the file back as it was read. */
  layout: { eol: '\n' | '\r\n'; bom: boolean };
  warnings: Warning[];
}
