import { loadConfig } from '../pipeline/config-load.js';
import type { WorkspaceConfig } from '../pipeline/config-types.js';
import { CostFold, zeroSpend, type CostLedger, type Spend } from '../run/costs.js';
import { readJournal } from '../run/journal.js';

// Money and tokens in `status --json` (issue 11 item 5): per cell, and totals for the
// workspace, this checkroom session and each agent. Replayed from the journal, so it is what
// a restart shows. Fields are only added to the contract (json.ts).

export const spendJson = (s: Spend | undefined) => {
  const v = s ?? zeroSpend();
  return { cost_usd: Math.round(v.costUsd * 1e6) / 1e6, tokens: { input: v.tokensIn, output: v.tokensOut, total: v.tokensIn + v.tokensOut }, attempts: v.attempts };
};

/** The workspace's spend as the journal has it; empty when nothing was journalled. `config`: the one already read. */
export async function readSpend(root: string, now: number, config?: WorkspaceConfig): Promise<CostLedger> {
  const j = await readJournal(root);
  // Nothing journalled, nothing spent: the replay and the failure policy it loads (with the
  // config schema, zod) are not needed (issue 10 item 2: lazy-load what a command does not need).
  if (j.events.length === 0) return new CostFold().view();
  const cfg = config ?? (await loadConfig(root));
  const { replayJournal } = await import('../run/ledger-fold.js');
  return replayJournal(j.events, now, { breaker: cfg.breaker, limits: cfg.limits }).costs;
}
