import { loadConfig } from '../pipeline/config/load.js';
import type { WorkspaceConfig } from '../pipeline/config/types.js';
import { CostFold, type CostLedger } from '../run/journal/costs.js';
import { readJournal } from '../run/journal/journal.js';
import { observedRuns, observedWaiting } from '../run/journal/observed-runs.js';
import { runsOf } from '../operator/runs.js';
import type { OperatorRun } from '../operator/types.js';
import type { Ledger } from '../run/journal/ledger.js';

// What a headless scan (`status`, `plan`, `partials`) reads of the journal:
// its spend, and the runs in flight as a read-only observer sees them — launches without an
// exit running, cells waiting for their retry — through the same fold (ledger-fold.ts), the
// same derivation (run/journal/observed-runs.ts) and the same rows (operator/runs.ts) as a running
// control room. So a scan counts a run in flight as running, marks its cell running and takes
// it out of the next steps, as the room's header, Plan and socket do (the scan counted it as
// its disk said). Cost: one read of the journal (its last JOURNAL_MAX_BYTES at most,
// journal.ts) and one fold, which `status --json` already paid for its spend; nothing at all
// without a journal (no config, no fold loaded).

export interface ScanJournal {
  costs: CostLedger;
  /** The runs in flight, one per cell, as a control room's operator model has them. */
  runs: OperatorRun[];
  /** The journal's fold (foresight reads its durations, breakers and spend); null without a journal. */
  ledger: Ledger | null;
}

const NONE: ReadonlySet<string> = new Set();

/** The journal of `root` at `now`; `config`: the one already read. */
export async function readScanJournal(root: string, now: number, config?: WorkspaceConfig): Promise<ScanJournal> {
  const j = await readJournal(root);
  // Nothing journalled, nothing spent and nothing in flight: the replay and the failure policy
  // it loads (with the config schema, zod) are not needed.
  if (j.events.length === 0) return { costs: new CostFold().view(), runs: [], ledger: null };
  const cfg = config ?? (await loadConfig(root));
  const { replayJournal } = await import('../run/journal/ledger-fold.js');
  const ledger = replayJournal(j.events, now, { breaker: cfg.breaker, limits: cfg.limits });
  // An observer skips what it runs itself; a scan runs nothing.
  return { costs: ledger.costs, runs: runsOf({ ledger, runs: observedRuns(ledger, NONE), waiting: observedWaiting(ledger, NONE) }), ledger };
}

/** The cells in flight: the running set a control room hands its live workspace (ui/agents/feed.ts). */
export const flyingKeys = (runs: readonly OperatorRun[]): ReadonlySet<string> => new Set(runs.map((r) => r.key));
