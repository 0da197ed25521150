import type { CutMap } from '../../triage/cut-evidence.js';
import type { PipelineDef, Warning, WorkspaceState } from '../../types.js';
import type { WorkspaceConfig } from '../config/types.js';
import type { CheckpointDoc } from '../../checkpoint/types.js';
import type { ScanResult } from '../../scan/scan.js';
import type { CacheUse } from '../../scan/cached-facts.js';
import type { TodoSnapshot } from '../../sources/todos.js';
import type { GateSummary } from '../../gates/summary.js';
import type { Cell } from '../../types.js';
import type { ResumeVocab } from '../../resume/vocab.js';

// A preset is a value: a pipeline family's pipeline, where its state comes from, what it has,
// and what it adds to the surfaces — its own state in the sources, its lines in the cell
// detail and the recover report, what keys its cached status. Code that used to test
// `preset === 'gates'` asks these fields, so a third family is one file plus one registry
// line (src/pipeline/presets/index.ts; docs/architecture.md, How to add).

/** What a workspace read from disk holds before its state is derived. */
export interface Sources {
  root: string;
  config: WorkspaceConfig;
  checkpoint: CheckpointDoc | null;
  units: string[];
  scan: ScanResult;
  /** Level 2: the SQL todo table, read once per change of the database file. */
  todos: TodoSnapshot | null;
  warnings: Warning[];
  /**
   * The preset's own state, read by its `source.read` and used only by its own file (the
   * gates preset's workflows: they are the state, not the scan; docs/domain.md).
   */
  own?: unknown;
  /** How each cell's last writer was cut off, from the journal (triage/cut-read.ts). */
  cuts?: CutMap;
}

/** Where a preset's state comes from: read once, derived on every change, kept true by watches. */
export interface PresetSource {
  /** Reads the sources; `has` says which of checkpoint.md and the todo table the preset has;
   *  `cache`, when given, is how the read may use the facts cache. */
  read(root: string, config: WorkspaceConfig, has: PresetHas, cache?: CacheUse): Promise<Sources>;
  derive(src: Sources, running: ReadonlySet<string>): WorkspaceState;
  /** Directories a live workspace watches besides the steps' own (again when an owned path appears). */
  watchDirs(src: Sources): string[];
  /** A workspace-relative path among the preset's own files: a change to it re-reads the whole source. */
  owns(rel: string): boolean;
  /** True when file events are applied one file at a time (the marker layout); otherwise only owned paths count. */
  incremental: boolean;
}

/** What a preset has besides its steps' files. */
export interface PresetHas {
  /** A checkpoint.md that checkroom reads, compares and rewrites (`w`, `recover`). */
  checkpoint: boolean;
  /** A RESUME.md letter (docs/domain.md, RESUME.md). */
  resume: boolean;
  /** An SQL todo table as a level-2 source. */
  todos: boolean;
}

/** How the sources summary speaks of this preset's files. */
export interface PresetWords {
  /** One unit: "unit", "workflow". */
  unit: string;
  /** The sources summary's title, what stands for checkpoint.md. */
  title: string;
  /** Level 1 of the three sources. */
  record: string;
  /** Level 3: what decides. */
  proof: string;
  /** Why `w` writes nothing, for a preset without a checkpoint. */
  noCheckpoint: string;
}

/** `recover` for a preset whose files are only read, never rewritten: a summary instead of rebuilds. */
export interface ReadOnlyRecovery {
  workflows: GateSummary[];
  interrupted: boolean;
}

export interface Preset {
  /** The name `preset:` gives in checkroom.yaml. */
  readonly name: string;
  /** A fresh copy of its pipeline: the base checkroom.yaml merges into. */
  pipeline(): PipelineDef;
  readonly source: PresetSource;
  readonly has: PresetHas;
  readonly words: PresetWords;
  /** A directory whose presence selects the preset when checkroom.yaml names none, and the sentence that says so. */
  readonly layout?: { dir: string; notice: string };
  /** Present when recovery only reads the preset's files (nothing is rebuilt): the report's summary. */
  readonly readOnlyRecovery?: (src: Sources) => Promise<ReadOnlyRecovery>;
  /** Facts of its own state for the recover report (`own` in `recover --json`), plain data. */
  readonly recoverFacts?: (src: Sources) => unknown;
  /** The resume letter in the preset's own words, when they are not the book's. */
  readonly letter?: PresetLetter;
  /** The cell detail's lines where a cell's proof is not a marker; null for a cell it leaves to the book's lines. */
  readonly cellDetail?: (cell: Cell, claim: string | null) => PresetDetail | null;
  /**
   * What besides the facts cache names this preset's own state in the status cache's key;
   * null: nothing does, so a status of it is never reused. Absent: the sources say it all.
   */
  readonly cacheKeys?: (src: Sources) => unknown[] | null;
  /** The recover report's section on the preset's own state (after the sources), drawn from the report. */
  readonly recoverLines?: (r: PresetReport, d: ReportDraw) => string[];
}

/** A cell's detail lines in a preset's words: its size, its proof (label and text), its claims. */
export interface PresetDetail {
  size: string;
  proof: [label: string, text: string];
  claims: string;
}

/** How the recover report draws: colour by token, a line fitted to the width, the "… N more" lines. */
export interface ReportDraw {
  paint(token: 'ok' | 'warn' | 'fail' | 'muted' | 'title', text: string): string;
  /** Fits one line to the report's width (workspace text must be sanitized before). */
  line(text: string): string;
  /** How many items of a list are shown, and the lines that say how many are not. */
  show: number;
  more(hidden: number): string[];
}

/** What of the recover report a preset's section reads: its read-only summary and its own lines. */
export interface PresetReport {
  gates: GateSummary[] | null;
  /** The preset's own recover facts (`recoverFacts`), plain data so `recover --json` carries them. */
  own?: unknown;
}

/** How the resume letter speaks of a preset that has no chapters or checkpoint.md. */
export interface PresetLetter {
  /** English labels and sentences that replace the book's (the letter parser reads them too). */
  words: Partial<ResumeVocab>;
  /** The "Important files" lines (`- label: path`), from the workspace root and its units. */
  files(root: string, units: readonly string[]): string[];
  /** Lines added to "Current progress" (`- label: value`): the whole of each unit, step by step. */
  progress?(state: WorkspaceState): string[];
}
