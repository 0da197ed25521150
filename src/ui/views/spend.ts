import type { Budget } from '../../pipeline/config/types.js';
import { budgetReasonOf, tokensOf, type CostLedger, type Spend } from '../../run/journal/costs.js';

// Money and tokens in words for the control room: the header, the Health
// view and the cell detail say the same thing the same way. Nothing is shown for a workspace
// whose agents never reported a cost (plain command agents), so their screens are unchanged.

export const usd = (n: number): string => (n > 0 && n < 0.01 ? `$${n.toFixed(4)}` : `$${n.toFixed(2)}`);

export const tokenWords = (n: number): string => (n >= 1_000_000 ? `${(n / 1_000_000).toFixed(1)}M` : n >= 1_000 ? `${(n / 1_000).toFixed(1)}k` : String(n));

/** "$0.04 · 6.0k tok", or '' when nothing was spent. */
export const spendWords = (s: Spend | undefined): string => (!s || s.attempts === 0 ? '' : `${usd(s.costUsd)} · ${tokenWords(tokensOf(s))} tok`);

/** The header's piece: session and workspace spend, with the budget when one is set. */
export const headerSpend = (c: CostLedger | undefined, budget: Budget | undefined): string => {
  if (!c || c.workspace.attempts === 0) return '';
  const cap = budget?.costUsd.session ?? null;
  const session = `${usd(c.session.costUsd)}${cap !== null ? ` of ${usd(cap)}` : ''}`;
  return `spent ${session} this session · ${usd(c.workspace.costUsd)} in all · ${tokenWords(tokensOf(c.workspace))} tok`;
};

/** A money or token budget is used up: the header's spend turns to a warning (the ledger's own test, not its words). */
export const budgetSpent = (c: CostLedger | undefined, budget: Budget | undefined): boolean => !!c && budgetReasonOf(c, budget) !== null;

/** A cell's spend and session for its detail lines. */
export const cellSpendLines = (c: CostLedger | undefined, key: string): string[] => {
  const s = c?.cells[key];
  if (!s || s.attempts === 0) return [];
  const session = c?.lastSession[key];
  return [`  spent ${usd(s.costUsd)} · tokens ${s.tokensIn} in / ${s.tokensOut} out over ${s.attempts} attempt${s.attempts === 1 ? '' : 's'}${session?.sessionId ? ` · session ${session.sessionId}` : ''}`];
};
