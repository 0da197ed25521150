// The domain's vocabulary, as plain data. Every module in src/ speaks these types;
// hooks/ and components/ only read them. See docs/domain.md for the words.

import type { Why } from './reasons/why.js';
import type { StoppedAt } from './state/where.js';
import type { Regression } from './state/where-cells.js';
import type { Resources } from './pipeline/resources.js';

/** Reconciled status of one cell (unit × step). Order of precedence is documented in reconcile.ts. */
export type CellStatus = 'done' | 'partial' | 'failed' | 'needs_human' | 'running' | 'not_started';

/** What checkpoint.md claims for a cell: ✅ ⏳ ❌ ⚠️ —. */
export type Claim = 'done' | 'in_progress' | 'failed' | 'needs_human' | 'not_started';

/** What the disk alone says about a cell. */
/** `unreadable`: something is there but cannot be read (permissions, not a regular file): a human must look. */
export type DiskState = 'done' | 'partial' | 'missing' | 'unreadable';

/** Triage verdict for a half-product (docs/domain.md, Half-products). `suspicious` is cause 3: marker on a too-small body. */
export type Verdict = 'almost_certainly_partial' | 'truncated' | 'maybe_complete' | 'suspicious';

export type Lang = 'zh' | 'en' | 'ja';

/** How a step proves completion. `file`: the step's own file ends with its marker.
 *  `entry`: an entry for the unit exists in a shared long-memory file (no marker). */
export type StepKind = 'file' | 'entry';

export interface StepDef {
  id: string;
  label: string;
  /** Column headings used for this step in checkpoint.md, any language. */
  aliases: string[];
  /** Path template relative to the workspace, `{unit}` is replaced by the unit id. */
  path: string;
  /** Marker name without the comment wrapper, e.g. DRAFT_COMPLETE; null for `entry` steps. */
  marker: string | null;
  dependsOn: string[];
  /** Phase number this step belongs to. */
  phase: number;
  kind: StepKind;
  /** Agent that performs this step (see the launcher); optional. */
  agent?: string;
  /** Bodies smaller than this (in characters) with a marker are flagged `suspicious`. */
  minChars: number;
  /** What it may use where it runs, over its agent's (docs/scale-out.md, Resources). */
  resources?: Resources;
}

export interface PhaseDef {
  id: number;
  name: string;
  /** Names used in checkpoint.md phase lines, any language. */
  aliases: string[];
  /** Global evidence files (phase 1 and 2 of the book); empty for per-unit phases. */
  artifacts: string[];
  /** Whether every unit must finish this phase before any unit starts the next one. */
  barrier: boolean;
}

export interface BatchDef {
  id: number;
  units: string[];
}

export interface PipelineDef {
  name: string;
  phases: PhaseDef[];
  steps: StepDef[];
  units: {
    /** Regex (source) matching a unit id, e.g. `ch\d{2,3}`. Used to discover units in file names. */
    pattern: string;
    /** When set, only these units exist (no discovery). */
    list?: string[];
  };
  /** Batches from config; checkpoint.md batches are used when this is empty. */
  batches: BatchDef[];
  /** Where config came from, for messages. */
  source: string;
  /** checkroom.yaml `outside_roots`, absolute: artifacts may be symlinks into these. */
  outsideRoots?: string[];
  /** checkroom.yaml `triage.quiet_window` in ms: a file changed this recently is live; absent: the default. */
  quietWindowMs?: number;
}

export interface FileFacts {
  path: string; // relative, '/'-separated
  exists: boolean;
  bytes: number;
  chars: number;
  /** Last non-blank line is exactly the marker. */
  marker: boolean;
  /** The marker occurs somewhere in the tail but is followed by more content. */
  markerNotLast: boolean;
  mtimeMs: number;
  /** Tail text (last few KB, decoded), kept for triage and previews. */
  tail: string;
  /** A code fence is left open at the end of the file (counted over the whole file when it was read whole, else over the tail). */
  fenceOpen: boolean;
  /** Why the file could not be read as a text artifact (binary, permission, not a file). */
  error?: string;
  /** The file could not be read at all (permission, not a regular file): its state is unknown. */
  unreadable?: boolean;
  /** `chars` is a lower bound: counting stopped once every verdict was settled. */
  charsAtLeast?: boolean;
  /** The last line looks like a marker but is not this step's. */
  markerShape?: { shape: 'other' | 'inline' | 'case' | 'bare'; expected: string };
}

export interface Triage {
  verdict: Verdict;
  /** In English: the UI and the JSON contract. */
  reason: string;
  /** The same finding as data, to be said in the workspace's language (reasons/say.ts). */
  why?: Why;
}

export interface Cell {
  unit: string;
  step: string;
  batch: number | null;
  path: string;
  status: CellStatus;
  disk: DiskState;
  checkpoint: Claim | null;
  exists: boolean;
  bytes: number;
  chars: number;
  /** `chars` is a lower bound: the count stopped once every verdict was settled. */
  charsAtLeast?: boolean;
  marker: boolean;
  mtimeMs: number;
  triage: Triage | null;
  /** Why the cell's file cannot be read (disk `unreadable`). */
  error?: string;
  /** Cells (unit/step) with failed or needs_human status that this cell transitively waits on. */
  blockedBy: string[];
}

export interface PartialFile {
  path: string;
  unit: string;
  step: string;
  chars: number;
  bytes: number;
  verdict: Verdict;
  reason: string;
  why?: Why;
}

export interface Discrepancy {
  unit: string;
  step: string;
  checkpoint: Claim;
  disk: DiskState;
  note: string;
}

export type PlanAction = 'retry' | 'human_review' | 'backup_redo' | 'decide' | 'run' | 'complete_phase' | 'rebuild_memory';

export interface NextStep {
  priority: 1 | 2 | 3;
  unit: string | null;
  step: string | null;
  action: PlanAction;
  reason: string;
  why?: Why;
  /** Number of steps this entry unblocks (priority 1 ordering). */
  blocks: number;
}

export type PhaseStatus = 'done' | 'in_progress' | 'not_started' | 'failed';

export interface PhaseProgress {
  id: number;
  name: string;
  status: PhaseStatus;
  done: number;
  total: number;
  /** Missing global artifacts (phases 1 and 2). */
  missing: string[];
}

export interface BatchProgress {
  id: number | null;
  units: string[];
  done: number;
  total: number;
  status: PhaseStatus;
}

export interface Warning {
  source: string; // file path relative to workspace, or 'scan'
  line?: number;
  message: string;
}

export interface WorkspaceState {
  root: string;
  name: string;
  pipeline: PipelineDef;
  units: string[];
  cells: Cell[];
  phases: PhaseProgress[];
  batches: BatchProgress[];
  currentPhase: number | null;
  /** The first batch not done (what scripts read in `status --json`); where the work stopped is `stoppedAt`. */
  currentBatch: number | null;
  /** Where the work was when it was interrupted (src/state/where.ts); absent in a state built by hand. */
  stoppedAt?: StoppedAt;
  /** Cells whose proof of done was lost, in unit order; absent in a state built by hand. */
  regressions?: Regression[];
  partials: PartialFile[];
  suspects: PartialFile[];
  discrepancies: Discrepancy[];
  next: NextStep[];
  warnings: Warning[];
  checkpoint: {
    exists: boolean;
    lang: Lang;
    lastUpdate: string | null;
  };
  scannedAt: number;
  /** Level-2 recovery source (the SQL todo table), when a todo database exists; see sources/level2.ts. */
  todos?: TodoView | null;
  /** The preset the state was read with (its name, src/pipeline/presets/); absent in a state built by hand, which means the default. */
  preset?: string;
}

/** The todo table as the state shows it: ready todos (the source document's query), where it disagrees with the disk. */
export interface TodoView {
  path: string;
  /** False when the database could not be read (see warnings). */
  ok: boolean;
  ready: string[];
  /** Ready todos the disk contradicts (a dependency without its marker, a cell already done or being written). */
  readyContradicted: { todoId: string; unit: string | null; step: string | null; note: string }[];
  disagreements: { unit: string; step: string; todoId: string; todo: string; disk: string; note: string }[];
  dangling: { todo_id: string; depends_on: string }[];
  warnings: Warning[];
}

export const cellKey = (unit: string, step: string): string => `${unit}/${step}`;
