import type { WorkspaceState } from '../types.js';
import type { Watching } from '../live/live-workspace.js';

// The narrow face of the live workspace (src/live) that the control room uses
// (process-compose's IProject lesson): a state, a subscription, a full rescan.

export interface LivePort {
  readonly state: WorkspaceState;
  readonly watching: Watching;
  subscribe(fn: (s: WorkspaceState) => void): () => void;
  refresh(): Promise<void>;
}
