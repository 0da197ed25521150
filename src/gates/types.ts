import type { FailureClass } from '../pipeline/config/types.js';
import type { Cell, Warning } from '../types.js';

// The gate-file workflow layout (docs/domain.md, Workflow gate files), as plain data.

/** Which of the real-world gate shapes was read (docs/domain.md, Workflow gate files, "Accept them all; say which"). */
export type GateShape = 'validation_status' | 'valid' | 'allowed' | 'status' | 'skipped' | 'truncated' | 'malformed';

export interface Gate {
  /** Relative path of the gate file. */
  file: string;
  agent: string;
  passed: boolean;
  skipped: boolean;
  shape: GateShape;
  errors: string[];
  timestamp: string | null;
  /** A cut-off gate: what its first bytes say (true pass, false fail, null not written yet). */
  cutVerdict?: boolean | null;
  /**
   * A cut-off gate counted as passed: the other proof, one sentence each.
   * Only disk evidence counts (an artifact of the step on disk, a later step's passing gate);
   * the plan's `completed` is listed with it, never alone: it is a claim.
   */
  provenBy?: string[];
}

export type GateStepStatus = 'done' | 'partial' | 'failed' | 'not_started' | 'skipped';

/** What the disk says about a gate file when it was read: the facts a cell reports. */
export interface GateFileFacts {
  exists: boolean;
  bytes: number;
  /** Characters as the book's scan counts them (UTF-8 code points, not bytes). */
  chars: number;
  mtimeMs: number;
  /** Why the file could not be read at all (permission, not a regular file). */
  unreadable?: string;
}

export interface GateStep {
  /** Display number as gate files write it: `00`, `00.1`, `04.5`. */
  number: string;
  agent: string;
  name: string;
  status: GateStepStatus;
  gate: Gate | null;
  /** Disk facts of the gate file; null when the step has no gate. */
  file: GateFileFacts | null;
  /** The step's reasoning file, if it has one. */
  reasoning: string | null;
  /** Its size, when read: an interrupted step's half-product is this file. */
  reasoningSize?: { bytes: number; chars: number };
  failureClass?: FailureClass;
  /** Step numbers this step depends on, in display form (`04.5`); unknown ones as written. */
  dependencies: string[];
  /** Status the plan claims (pending|in_progress|completed|blocked), or null. */
  planStatus: string | null;
  /** Where the workflow file says the step's gate is written, for this run; absent when it does not say. */
  gatePath?: string;
}

export interface PlanStep {
  number: string;
  name: string;
  agent: string;
  dependencies: string[];
  status: string | null;
  /** Names of the phase-plan tasks folded into this workflow step, if any. */
  tasks?: string[];
}

export interface Plan {
  id: string;
  name: string | null;
  status: string | null;
  /** The workflow file the plan says it follows (`feature-flow`), if it says. */
  workflow: string | null;
  steps: PlanStep[];
  /** Relative paths of the plan files read (top plan and phase plans). */
  files: string[];
}

export interface ReasoningNote {
  file: string;
  number: string;
  agent: string;
  shape: 'decisions' | 'final_decision' | 'unreadable';
  hasDecision: boolean;
  /** Size of the file as read (0 when it could not be); set by the reader. */
  bytes?: number;
  chars?: number;
}

export interface MemoryFile {
  file: string;
  present: boolean;
  bytes: number;
}

export interface GateWorkflow {
  id: string;
  name: string;
  /** The workflow file the steps and dependencies come from (`.claude/workflows/feature-flow.yaml`), or null. */
  workflowFile: string | null;
  planStatus: string | null;
  steps: GateStep[];
  /** Highest step whose gate passed (a skipped step counts: it is settled). */
  lastPassed: string | null;
  next: { number: string; agent: string; name: string } | null;
  missingArtifacts: { name: string; path: string }[];
  failedValidations: { step: string; errors: string[]; class: FailureClass }[];
  /** Steps with a reasoning file but no final decision and no gate. */
  interrupted: string[];
  memory: MemoryFile[];
  warnings: Warning[];
}

export interface GateWorkspace {
  root: string;
  workflows: GateWorkflow[];
  memory: MemoryFile[];
  warnings: Warning[];
}

/**
 * What stands as a gate cell's proof of completion (docs/domain.md, Workflow gate files: a passing gate, not
 * a marker). `cut_off` and `unreadable` are gates that prove nothing; `interrupted` is a step
 * with reasoning but no final decision and no gate.
 */
export type GateProofKind = 'passed' | 'skipped' | 'failed' | 'cut_off' | 'unreadable' | 'interrupted' | 'none';

export interface GateProof {
  kind: GateProofKind;
  /** The gate shape read, when there is a gate. */
  shape: GateShape | null;
  failureClass: FailureClass | null;
  errors: string[];
  /** When the gate says it was validated (`timestamp` / `validated_at`). */
  timestamp: string | null;
  /** Reasoning file of the step, if any (the evidence of an interrupted step). */
  reasoning: string | null;
  /** A cut-off gate counted as passed: which proof (Gate.provenBy). */
  provenBy?: string[];
}

/**
 * A cell of a gate-file workspace: the generic cell facts, plus its gate so the cell detail
 * can speak in gate terms. The status JSON picks cell fields by name, so `gate` stays out of
 * the documented contract.
 */
export interface GateCell extends Cell {
  gate: GateProof;
}
