import { loadConfig } from '../pipeline/config-load.js';
import { zeroSpend, type CostLedger, type Spend } from '../run/costs.js';
import { readJournal } from '../run/journal.js';
import { replayJournal } from '../run/ledger-fold.js';

// Money and tokens in `status --json` (issue 11 item 5): per cell, and totals for the
// workspace, this checkroom session and each agent. Replayed from the journal, so it is what
// a restart shows. Fields are only added to the contract (json.ts).

export const spendJson = (s: Spend | undefined) => {
  const v = s ?? zeroSpend();
  return { cost_usd: Math.round(v.costUsd * 1e6) / 1e6, tokens: { input: v.tokensIn, output: v.tokensOut, total: v.tokensIn + v.tokensOut }, attempts: v.attempts };
};

/** The workspace's spend as the journal has it; empty when nothing was journalled. */
export async function readSpend(root: string, now: number): Promise<CostLedger> {
  const config = await loadConfig(root);
  const j = await readJournal(root);
  return replayJournal(j.events, now, { breaker: config.breaker, limits: config.limits }).costs;
}
