// The disk budget's journal event (docs/logs.md, "Disk budget"), kept apart from journal.ts
// like the adapters' events: one attempt's log removed to keep `.checkroom/runs/` under
// `logs.max_bytes`. The attempt stays in the journal; its log is gone, and every reader
// (the pager, `checkroom logs`) says so with this event's time instead of a bare ENOENT.

export interface LogPrunedEvent {
  v: 1;
  at: number;
  type: 'log_pruned';
  runId: string;
  unit: string;
  step: string;
  attempt: number;
  /** Workspace-relative path of the removed log. */
  path: string;
  bytes: number;
  /** What `.checkroom/runs/` held before this prune, and the budget. */
  totalBytes: number;
  maxBytes: number;
}

export const LOG_EVENT_FIELDS = {
  log_pruned: { runId: 's', unit: 's', step: 's', attempt: 'n', path: 's', bytes: 'n', totalBytes: 'n', maxBytes: 'n' },
} as const;
