// The journal's record of a concurrency the operator changed while the agent ran
// (docs/scale-out.md, Arrays): it outlives a restart, over checkroom.yaml's, until changed
// again. Kept apart from journal.ts so the seam there is one line.

/** The operator changed an agent's concurrency while it ran. */
export interface ConcurrencyEvent {
  v: 1;
  at: number;
  type: 'concurrency';
  agent: string;
  concurrency: number;
}

export const CONCURRENCY_EVENT_FIELDS = {
  concurrency: { agent: 's', concurrency: 'n' },
} as const;
