import type { Claim, Lang, PhaseStatus, Warning } from '../types.js';

export interface CheckpointRow {
  unit: string;
  /** step id → claim, for the columns present in this table. */
  claims: Record<string, Claim>;
  line: number;
}

export interface CheckpointBatch {
  id: number;
  /** Status suffix of the `### Batch N — 未开始` heading, if any. */
  status: PhaseStatus | null;
  /** Step ids of the table columns, in order. */
  columns: string[];
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
