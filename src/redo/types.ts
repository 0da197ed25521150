import type { Claim } from '../types.js';
import type { RedoCell } from './closure.js';

// The redo-from-here action as plain data (docs/redo.md): what the preview shows, what the
// journal keeps, what undo reads back.

/** A changed agent or prompt for the redone cells' next attempt (docs/redo.md, Fork from here). */
export interface RedoOverride {
  agent?: string;
  /** Workspace-relative, confined to the workspace. */
  prompt?: string;
}

/** One file the redo backs up, as it is now. */
export interface RedoFile {
  path: string;
  bytes: number;
  /** It ends with its step's marker: finished work, backed up and redone all the same. */
  marker: boolean;
  /** A shared long-memory file: copied, the file stays. */
  shared: boolean;
}

export interface RedoPreviewCell extends RedoCell {
  /** What checkpoint.md claims now, put back by undo. */
  claim: Claim | null;
  /** The file it backs up, or null when there is none yet. */
  file: RedoFile | null;
}

export interface RedoPreview {
  origin: { unit: string; step: string };
  override: RedoOverride | null;
  /** In queue order (plan order). */
  cells: RedoPreviewCell[];
  /** Every file backed up, once each (a shared file serves several cells). */
  files: RedoFile[];
  bytes: number;
  /** Why nothing can be done now (a file being written, a run in flight), or null. */
  refusal: string | null;
}

/** A backup the redo made: moved aside (`copy: false`) or copied (a shared file). */
export interface RedoMove {
  path: string;
  backup: string;
  copy: boolean;
}

export class RedoError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RedoError';
  }
}
