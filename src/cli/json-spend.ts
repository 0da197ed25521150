import type { WorkspaceConfig } from '../pipeline/config/types.js';
import { zeroSpend, type CostLedger, type Spend } from '../run/journal/costs.js';
import { readScanJournal } from './scan-journal.js';

// Money and tokens in `status --json`: per cell, and totals for the
// workspace, this checkroom session and each agent. Replayed from the journal, so it is what
// a restart shows. Fields are only added to the contract (json.ts).

export const spendJson = (s: Spend | undefined) => {
  const v = s ?? zeroSpend();
  return { cost_usd: Math.round(v.costUsd * 1e6) / 1e6, tokens: { input: v.tokensIn, output: v.tokensOut, total: v.tokensIn + v.tokensOut }, attempts: v.attempts };
};

/** The workspace's spend as the journal has it; empty when nothing was journalled. `config`: the one already read. */
export const readSpend = async (root: string, now: number, config?: WorkspaceConfig): Promise<CostLedger> => (await readScanJournal(root, now, config)).costs;
