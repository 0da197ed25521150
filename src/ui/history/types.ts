import type { JournalEvent } from '../../run/journal/journal.js';
import type { HistoryFold } from '../../history/timeline.js';
import type { WorkspaceState } from '../../types.js';
import type { LedgerConfig } from '../../run/journal/ledger.js';
import type { AgentsUi } from '../agents/types.js';

// The History view's slice of the store (docs/history.md): the journal's fold, kept by the
// history feed (history-feed.ts), the moment time travel shows, and the open post-mortem.

export interface HistoryUi {
  /** The timeline folded so far; null before the first read. Mutated by the feed only, `version` says when. */
  fold: HistoryFold | null;
  /** The events read, in order: time travel rebuilds a moment from them. */
  events: readonly JournalEvent[];
  version: number;
  /** The supervisor's breaker and limit settings, to fold the journal up to a moment (Health in the past); null without agents. */
  ledger: LedgerConfig | null;
}

/** The pipeline as it was at a moment (src/history/past.ts): what every view shows while set. */
export interface Past {
  at: number;
  ws: WorkspaceState;
  /** Cells the journal never speaks of, shown as they are now. */
  notJournalled: number;
  /** The supervisor as it was then (its ledger folded up to the moment, nothing in flight); absent without one. */
  agents?: AgentsUi;
}

export interface HistoryFeedOptions {
  intervalMs?: number;
  /** Say the digest once, after the first read (the interactive control room). */
  digest?: boolean;
  ledger?: LedgerConfig;
}

export const initialHistory = (): HistoryUi => ({ fold: null, events: [], version: 0, ledger: null });
