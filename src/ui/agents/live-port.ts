import type { WorkspaceState } from '../../types.js';
import type { Watching } from '../../live/live-workspace.js';
import type { WorkspaceRead } from '../../recover/load.js';

// The one face of the live workspace (src/live) that the control room uses (process-compose's
// IProject lesson: one port, not a port plus closures handed to the agents).
// Up: a state and a subscription. Down: a full rescan, the cells in flight, the files a run
// or an action just wrote. The running set flows one way: it goes down here and comes back
// only as the cells of the next state; the store keeps no copy of its own.

export interface LivePort {
  readonly state: WorkspaceState;
  readonly watching: Watching;
  subscribe(fn: (s: WorkspaceState) => void): () => void;
  refresh(): Promise<void>;
  /** The cells in flight (running or waiting for their next attempt): they show ⏳ running. The same set again publishes nothing. */
  setRunning(keys: ReadonlySet<string>): void;
  /** Workspace-relative paths just written: each is re-read once (on its watch event when a watch reports it). */
  touch(paths: string[]): void;
  /** The workspace as read, pending events applied: recovery uses it instead of reading the disk a second time. */
  read(): Promise<WorkspaceRead>;
}
