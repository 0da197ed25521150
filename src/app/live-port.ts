import type { WorkspaceState } from '../types.js';

// The narrow face of the live workspace (src/live) that the control room uses
// (process-compose's IProject lesson): a state, a subscription, a full rescan.

export interface WatchingInfo {
  mode: 'watch' | 'poll' | 'off';
  watches: number;
  notice: string | null;
}

export interface LivePort {
  readonly state: WorkspaceState;
  readonly watching: WatchingInfo;
  subscribe(fn: (s: WorkspaceState) => void): () => void;
  refresh(): Promise<void>;
}
